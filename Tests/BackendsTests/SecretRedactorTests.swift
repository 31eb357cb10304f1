import AsyncHTTPClient
import Backends
import Foundation
import Hummingbird
import HummingbirdTesting
import Model
import Testing

@Suite("Secret redaction of upstream text")
struct SecretRedactorTests {
    @Test func credentialShapedTextIsRedacted() {
        let cases: [(String, String)] = [
            ("auth failed: Bearer abc.def-123", "Bearer abc.def-123"),
            ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl expired", "eyJhbGciOiJIUzI1NiJ9"),
            ("bad login {\"password\": \"hunter2\"}", "hunter2"),
            ("wachtwoord=geheim123 rejected", "geheim123"),
            ("api_key: k-123456 invalid", "k-123456"),
            ("Set-Cookie: tickedify.sid=s%3Aabc123; Path=/", "s%3Aabc123"),
            ("refresh_token=rt_999 reused", "rt_999"),
        ]
        for (text, secret) in cases {
            let scrubbed = BackendError.scrub(text)
            #expect(!scrubbed.contains(secret), "\(text) → \(scrubbed)")
            #expect(scrubbed.contains(SecretRedactor.mask), "\(text) → \(scrubbed)")
        }
        #expect(BackendError.scrub("event 42 not found") == "event 42 not found")
    }

    @Test func scrubbedTextIsOneShortPrintableLine() {
        let scrubbed = BackendError.scrub(
            "first\nsecond\u{0}\u{1b}[31m third \u{202e}" + String(repeating: "x", count: 400))
        #expect(!scrubbed.contains("\n"))
        #expect(
            !scrubbed.unicodeScalars.contains {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            })
        #expect(scrubbed.count <= 201)
    }

    @Test func configuredSecretsAreReplacedInEveryForm() {
        let redactor = SecretRedactor(secrets: ["pa\"ss word/9", "short", "x"])
        let body = Data(#"{"detail":"pa\"ss word/9 and pa%22ss%20word%2F9 and short"}"#.utf8)
        let text = String(decoding: redactor.redact(body), as: UTF8.self)
        #expect(!text.contains("ss word"))
        #expect(!text.contains("ss%20word"))
        #expect(!text.contains("short"))
    }

    /// A hostile backend echoes credentials in its error body: the error the gateway shows,
    /// and what /v1/sources will show, have none of them.
    @Test func upstreamErrorsAreRedactedBeforeAnyoneSeesThem() async throws {
        let router = Router()
        router.get("/api/events") { _, _ -> Response in
            let body =
                #"{"detail":"db login failed for hunter2-hunter2 (Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.sig) token=abc123def"}"#
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let http = UpstreamHTTP(client: .shared, redactor: SecretRedactor(secrets: ["hunter2-hunter2"]))
            let eightalls = EightAllsClient(
                endpoint: BackendEndpoint(baseURL: "http://127.0.0.1:\(port)/api"), http: http, profile: "p")
            var message = ""
            do {
                _ = try await eightalls.events(
                    start: Date(), end: Date().addingTimeInterval(60), eventType: nil, status: nil)
            } catch let error as BackendError {
                message = error.message
            }
            #expect(message.hasPrefix("eightalls answered 500"), "\(message)")
            let recorded = try #require(http.monitor.statuses(profile: "p").first?.lastError?.message)
            for text in [message, recorded] {
                #expect(!text.contains("hunter2-hunter2"), "\(text)")
                #expect(!text.contains("eyJhbGciOi"), "\(text)")
                #expect(!text.contains("abc123def"), "\(text)")
                #expect(text.contains(SecretRedactor.mask))
            }
        }
    }
}
