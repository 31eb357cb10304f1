import Foundation
import Hummingbird
import Model
import NIOCore

// Helpers for the FitIQ simulator: Go-style JSON numbers and times, RFC 3339 parsing, responses
// in the backend's envelope and token minting (seeded ids come from Core's `SeedRandom`).

// MARK: - Formatting

enum FitIQFormat {
    /// Go's `time.Time` JSON form for a UTC time (RFC3339Nano): `2026-11-23T06:45:00Z`, a fraction
    /// only when non-zero, trailing zeros trimmed (`.12Z`).
    static func time(_ micros: Int64) -> String {
        var s = Civil.isoString(micros)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
        }
        return s + "Z"
    }

    /// The UTC day (days since 1970-01-01) a UTC instant falls on.
    static func utcDay(_ micros: Int64) -> Int {
        Int(micros >= 0 ? micros / Civil.microsPerDay : (micros - Civil.microsPerDay + 1) / Civil.microsPerDay)
    }

    /// A float as Go's `encoding/json` writes it: integral values without a fraction (`12`, not `12.0`).
    static func number(_ d: Double) -> JSONValue {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return .int(Int(d)) }
        return .double(d)
    }

    /// Rounds to one decimal (the simulator's nutrition totals).
    static func round1(_ d: Double) -> Double { (d * 10).rounded() / 10 }

    static func nowMicros(_ now: Double) -> Int64 { Int64((now * 1_000_000).rounded(.down)) }

    /// Go's `time.Parse(time.RFC3339, s)`: `YYYY-MM-DDTHH:MM:SS[.fraction]` plus `Z` or `±HH:MM`;
    /// returns the UTC instant in microseconds (nanoseconds beyond the sixth digit are dropped).
    static func parseRFC3339(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        guard b.count >= 20,
            let year = Civil.digits(b, 0, 4), b[4] == UInt8(ascii: "-"),
            let month = Civil.digits(b, 5, 2), b[7] == UInt8(ascii: "-"),
            let day = Civil.digits(b, 8, 2), b[10] == UInt8(ascii: "T"),
            let hour = Civil.digits(b, 11, 2), b[13] == UInt8(ascii: ":"),
            let minute = Civil.digits(b, 14, 2), b[16] == UInt8(ascii: ":"),
            let second = Civil.digits(b, 17, 2),
            (1...12).contains(month), day >= 1, day <= Civil.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var pos = 19
        var micro = 0
        if b[pos] == UInt8(ascii: ".") {
            pos += 1
            var count = 0
            while pos < b.count, b[pos] >= UInt8(ascii: "0"), b[pos] <= UInt8(ascii: "9") {
                if count < 6 { micro = micro * 10 + Int(b[pos] - UInt8(ascii: "0")) }
                count += 1
                pos += 1
            }
            guard (1...9).contains(count) else { return nil }
            for _ in min(count, 6)..<6 { micro *= 10 }
        }
        guard pos < b.count else { return nil }
        var offset = 0
        if b[pos] == UInt8(ascii: "Z") {
            pos += 1
        } else if b[pos] == UInt8(ascii: "+") || b[pos] == UInt8(ascii: "-") {
            guard let oh = Civil.digits(b, pos + 1, 2), pos + 3 < b.count, b[pos + 3] == UInt8(ascii: ":"),
                let om = Civil.digits(b, pos + 4, 2), oh < 24, om < 60
            else { return nil }
            offset = (oh * 3600 + om * 60) * (b[pos] == UInt8(ascii: "-") ? -1 : 1)
            pos += 6
        } else {
            return nil
        }
        guard pos == b.count else { return nil }
        return Civil.micros(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, micro: micro)
            - Int64(offset) * Civil.microsPerSecond
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with hex digits (what `uuid.Parse` accepts in its common form).
    static func isUUID(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if !(c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                && !(c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                && !(c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
            {
                return false
            }
        }
        return true
    }
}

// MARK: - Responses

enum FitIQHTTP {
    static let contentType = "application/json; charset=utf-8"

    static func json(_ value: JSONValue, status: Int = 200) -> Response {
        Response(
            status: .init(code: status, reasonPhrase: reasonPhrase(status)),
            headers: [.contentType: contentType],
            body: .init(byteBuffer: value.bytes)
        )
    }

    /// `{"data":…}` (swagger `StandardResponse`; the real server sends no `success` key).
    static func data(_ value: JSONValue, status: Int = 200) -> Response {
        json(.object(["data": value]), status: status)
    }

    /// `{"error":{"message":…}}` (swagger `ErrorResponse`).
    static func error(_ message: String, status: Int) -> Response {
        json(.object(["error": .object(["message": .string(message)])]), status: status)
    }

    /// The router's answer for an unknown route (Go's `404 page not found`, plain text).
    static var notFoundPage: Response {
        Response(
            status: .notFound,
            headers: [.contentType: "text/plain"],
            body: .init(byteBuffer: ByteBuffer(string: "404 page not found"))
        )
    }

    static var noContent: Response {
        var response = Response(status: .noContent, headers: [:], body: .init())
        response.headers[.contentLength] = nil
        return response
    }

    /// The router's trailing-slash redirect: 301 for GET (with Go's tiny HTML body), 307 otherwise;
    /// `Location` is the path without the slash, query kept.
    static func redirect(_ request: SimRequest, to path: String) -> Response {
        var location = path
        if !request.rawQuery.isEmpty { location += "?" + request.rawQuery }
        if request.method == .get {
            return Response(
                status: .init(code: 301, reasonPhrase: reasonPhrase(301)),
                headers: [.location: location, .contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "<a href=\"\(location)\">Moved Permanently</a>.\n\n"))
            )
        }
        return Response(
            status: .init(code: 307, reasonPhrase: reasonPhrase(307)), headers: [.location: location], body: .init())
    }
}

// MARK: - Request bodies

/// Reads fields of a JSON object body the way Go's `json.Unmarshal` into a struct does: a missing
/// key or `null` is nil; a value of the wrong type makes the whole body invalid.
struct FitIQBody {
    let object: JSONObject
    private(set) var typeError = false

    /// A nested object (an item of a list in the body).
    init(object: JSONObject) {
        self.object = object
    }

    /// nil when the body is not a JSON object.
    init?(_ request: SimRequest) {
        guard request.body.readableBytes > 0, let value = JSONValue.parse(request.body.readableBytesView),
            case .object(let o) = value
        else { return nil }
        object = o
    }

    func has(_ key: String) -> Bool { object.has(key) }

    mutating func string(_ key: String) -> String? {
        switch object[key] {
        case .none, .null?: return nil
        case .string(let s)?: return s
        default:
            typeError = true
            return nil
        }
    }

    mutating func number(_ key: String) -> Double? {
        switch object[key] {
        case .none, .null?: return nil
        case .int(let i)?: return Double(i)
        case .double(let d)?: return d
        default:
            typeError = true
            return nil
        }
    }

    mutating func int(_ key: String) -> Int? {
        switch object[key] {
        case .none, .null?: return nil
        case .int(let i)?: return i
        default:
            typeError = true
            return nil
        }
    }

    mutating func array(_ key: String) -> [JSONValue]? {
        switch object[key] {
        case .none, .null?: return nil
        case .array(let a)?: return a
        default:
            typeError = true
            return nil
        }
    }
}

// MARK: - Tokens

enum FitIQTokens {
    /// `{"alg":"HS256","typ":"JWT"}` base64url-encoded.
    static let header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

    /// A JWT-shaped access token: real header and payload (`sub`, `user_id`, `email`, `iat`, `exp`
    /// in Unix seconds, `jti`), and an opaque random signature. The simulator validates tokens by
    /// looking them up, never by checking the signature.
    static func accessToken(userID: String, email: String, issuedAt: Double, expiresAt: Double) -> String {
        let payload: JSONValue = .object([
            "sub": .string(userID),
            "user_id": .string(userID),
            "email": .string(email),
            "iat": .int(Int(issuedAt.rounded(.down))),
            "exp": .int(Int(expiresAt.rounded(.down))),
            "jti": .string(UUID().uuidString.lowercased()),
        ])
        return header + "." + base64URL(Array(payload.serialized.utf8)) + "." + base64URL(randomBytes(32))
    }

    /// An opaque refresh token: 64 hex characters, like the real server's.
    static func refreshToken() -> String {
        randomBytes(32).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
