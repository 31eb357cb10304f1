import Backends
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import Testing

@testable import Gateway

/// Calendar servers that echo what they were sent in their error bodies — the secret part of
/// the address (its path, a path segment, its query token; plain, percent-encoded or
/// JSON-escaped), the Basic credential as its header or as bare base64, the password in a URL —
/// and none of it reaches `/v1/calendars`, `/v1/events`, `/v1/today`, `/v1/sources` or the log.
@Suite struct UpstreamEchoTests {
    static let user = "ouders"
    static let password = "amstel/2026!pw"
    static let secretSegment = "private-9f3c1e7a5b2d48c6"
    static let token = "Tk7x9Qv2Lm4pR8"
    static var basic: String { Data("\(user):\(password)".utf8).base64EncodedString() }

    /// How each calendar's server answers: a 500 whose FastAPI-style `detail` echoes one thing.
    static let modes = ["header", "base64", "path", "segment", "query", "encoded", "escaped", "userinfo"]

    static func echo(_ request: Request) -> Response {
        let path = request.uri.path
        let segments = path.split(separator: "/").map(String.init)
        let mode = segments.first ?? ""
        let authorization = request.headers[.authorization] ?? ""
        let query = request.uri.query ?? ""
        let token = query.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) } ?? ""
        func lowerPercent(_ text: String) -> String {
            text.utf8.map { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                    ? String(UnicodeScalar(byte)) : String(format: "%%%02x", byte)
            }.joined()
        }
        let detail: String
        switch mode {
        case "header": detail = "refused; you sent Authorization: \(authorization)"
        case "base64": detail = "account \(authorization.dropFirst(6)) is locked"
        case "path": detail = "no feed at \(path)"
        case "segment": detail = "calendar \(segments.dropFirst().first ?? "") has gone"
        case "query": detail = "unknown key \(token)"
        case "encoded": detail = "no feed at \(lowerPercent(path))"
        case "userinfo":
            let pair = String(
                decoding: Data(base64Encoded: String(authorization.dropFirst(6))) ?? Data(), as: UTF8.self)
            let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
            detail = "fetch of http://\(parts[0]):\(lowerPercent(parts[1]))@127.0.0.1\(path) failed"
        default:  // escaped: every slash and every "9" as a JSON \u escape
            let escaped = path.replacingOccurrences(of: "/", with: #"\u002f"#).replacingOccurrences(
                of: "9", with: #"\u0039"#)
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"detail":"no feed at \#(escaped)"}"#)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let body = (try? encoder.encode(["detail": detail])) ?? Data()
        return Response(
            status: .internalServerError, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(data: body)))
    }

    @Test func echoedSecretsReachNoAnswerAndNoLog() async throws {
        let router = Router()
        router.get("**") { request, _ in Self.echo(request) }
        let server = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await server.test(.live) { upstream in
            let port = try #require(upstream.port)
            try await withDemo(adjust: { profile in
                profile[ICSSettings.self] = ICSSettings(
                    calendars: Self.modes.map { mode in
                        ICSSettings.Calendar(
                            name: "echo-\(mode)",
                            url:
                                "http://127.0.0.1:\(port)/\(mode)/\(Self.secretSegment)/basic.ics?token=\(Self.token)&lang=nl",
                            username: Self.user, password: Secret(Self.password))
                    }, timeout: .seconds(5))
            }) { demo in
                let noCache: HTTPFields = [.cacheControl: "no-cache"]
                let answers = try await demo.test { client in
                    var texts: [String] = []
                    for path in ["/v1/events", "/v1/calendars", "/v1/today", "/v1/sources"] {
                        let response = try await client.execute(uri: path, method: .get, headers: noCache)
                        texts.append(String(buffer: response.body))
                    }
                    return texts
                }
                let sources = try JSONDecoder().decode(JSONValue.self, from: Data(answers[3].utf8))
                let everything = answers + [demo.logs.text]
                // Every calendar failed with its server's own message (so the echo was read)…
                for mode in Self.modes {
                    #expect(answers[3].contains("echo-\(mode)"), "\(mode) missing from /v1/sources")
                }
                #expect(
                    answers[3].components(separatedBy: "ics answered 500").count - 1 >= Self.modes.count,
                    "\(sources)")
                #expect(answers[3].contains(SecretRedactor.mask))
                // …and nothing secret of what it echoed is anywhere.
                let secrets = [
                    "9f3c1e7a5b2d48c6", Self.token, Self.basic, String(Self.basic.prefix(12)), "amstel", "2026!pw",
                    "2026%21pw", "9f3c1e7a5b2d48c6".replacingOccurrences(of: "9", with: #"\u0039"#),
                ]
                for (index, text) in everything.enumerated() {
                    for secret in secrets {
                        #expect(!text.contains(secret), "\(secret) in text \(index)")
                    }
                }
            }
        }
    }
}
