import Foundation
import Model

// HS256 JWTs as PyJWT 2.x writes and checks them. The Simulators target has no crypto
// dependency, so SHA-256 and HMAC are implemented here (FIPS 180-4, RFC 2104).

/// SHA-256 over bytes.
enum PRSNLSHA256 {
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }

        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] =
                    UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            h[0] = h[0] &+ a
            h[1] = h[1] &+ b
            h[2] = h[2] &+ c
            h[3] = h[3] &+ d
            h[4] = h[4] &+ e
            h[5] = h[5] &+ f
            h[6] = h[6] &+ g
            h[7] = h[7] &+ hh
        }
        return h.flatMap { v in
            [
                UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
                UInt8(truncatingIfNeeded: v),
            ]
        }
    }

    static func hex(_ s: String) -> String {
        hash(Array(s.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    /// HMAC-SHA256 (RFC 2104).
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var k = key.count > 64 ? hash(key) : key
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = hash(k.map { $0 ^ 0x36 } + message)
        return hash(k.map { $0 ^ 0x5c } + inner)
    }
}

/// base64url without padding (RFC 7515), as PyJWT writes it.
enum PRSNLBase64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ s: Substring) -> [UInt8]? {
        guard s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var b64 = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        return Data(base64Encoded: b64).map { Array($0) }
    }
}

/// HS256 JWTs: PyJWT's `jwt.encode` / `jwt.decode(token, key, algorithms=["HS256"])`.
enum PRSNLJWT {
    enum Decoded: Equatable {
        /// Bad shape, signature, algorithm or claims (`jwt.InvalidTokenError`).
        case invalid
        /// A good signature but `exp <= now` (`jwt.ExpiredSignatureError`).
        case expired(JSONObject)
        case valid(JSONObject)
    }

    /// PyJWT sorts the header keys and writes compact JSON; the payload keeps its order.
    static func encode(_ payload: JSONObject, secret: String) -> String {
        let header = PRSNLBase64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let body = PRSNLBase64URL.encode(Array(JSONValue.object(payload).serialized.utf8))
        let signingInput = header + "." + body
        let signature = PRSNLSHA256.hmac(key: Array(secret.utf8), message: Array(signingInput.utf8))
        return signingInput + "." + PRSNLBase64URL.encode(signature)
    }

    /// Verifies the signature first, then `exp` (an integer or float of seconds; a token without
    /// `exp` never expires).
    static func decode(_ token: String, secret: String, now: Date) -> Decoded {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = PRSNLBase64URL.decode(parts[0]),
            let payloadBytes = PRSNLBase64URL.decode(parts[1]),
            let signature = PRSNLBase64URL.decode(parts[2])
        else { return .invalid }
        guard case .object(let header) = JSONValue.parse(headerBytes), header["alg"]?.stringValue == "HS256" else {
            return .invalid
        }
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        guard PRSNLSHA256.hmac(key: Array(secret.utf8), message: signingInput) == signature else { return .invalid }
        guard case .object(let payload) = JSONValue.parse(payloadBytes) else { return .invalid }
        switch payload["exp"] {
        case .none: return .valid(payload)
        case .int(let exp): return Double(exp) <= now.timeIntervalSince1970 ? .expired(payload) : .valid(payload)
        case .double(let exp): return exp <= now.timeIntervalSince1970 ? .expired(payload) : .valid(payload)
        default: return .invalid
        }
    }
}

/// Python's `uuid.UUID(s)`: strips `urn:`, `uuid:` and braces, drops hyphens, needs 32 hex digits.
/// Returns the canonical lowercase form, or nil (ValueError).
func prsnlPythonUUID(_ s: String) -> String? {
    var hex = s.replacingOccurrences(of: "urn:", with: "").replacingOccurrences(of: "uuid:", with: "")
    hex = hex.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).replacingOccurrences(of: "-", with: "")
    guard hex.utf8.count == 32, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
    let h = Array(hex.lowercased())
    return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-"
        + String(h[20..<32])
}

/// pydantic 2's UUID validation of a path parameter: hyphenated (36), simple (32), braced (38) or
/// `urn:uuid:` (45) forms. Returns the canonical lowercase form, or the uuid crate's error text.
func prsnlPydanticUUID(_ s: String) -> Checked<String, String> {
    let chars = Array(s.unicodeScalars)
    var body = chars
    if s.lowercased().hasPrefix("urn:uuid:") { body = Array(chars.dropFirst(9)) }
    if body.count == 38, body.first == "{", body.last == "}" { body = Array(body.dropFirst().dropLast()) }
    for (i, c) in body.enumerated() where !(c.properties.isASCIIHexDigit || c == "-") {
        let offset = chars.count - body.count
        return .failure(
            "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `\(c)` at \(i + offset + 1)"
        )
    }
    let groups = body.split(separator: "-", omittingEmptySubsequences: false)
    if groups.count == 1 {
        guard body.count == 32 else {
            return .failure("invalid length: expected length 32 for simple format, found \(body.count)")
        }
    } else {
        guard groups.count == 5 else { return .failure("invalid group count: expected 5, found \(groups.count)") }
        let expected = [8, 4, 4, 4, 12]
        for (i, group) in groups.enumerated() where group.count != expected[i] {
            return .failure("invalid group length in group \(i): expected \(expected[i]), found \(group.count)")
        }
    }
    guard let canonical = prsnlPythonUUID(String(String.UnicodeScalarView(body))) else {
        return .failure("invalid length: expected length 32 for simple format, found \(body.count)")
    }
    return .success(canonical)
}
