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

    /// A secret calendar address is found in its parts, in every spelling a server may echo it
    /// in; a Basic credential is found inside its base64.
    @Test func secretAddressesAndBasicCredentialsAreFoundInEveryForm() {
        let address = "https://calendar.example.org/private/abc123def/basic.ics?token=Qz7tokenValue99&lang=nl"
        let redactor = SecretRedactor(secrets: [address, "amstel/2026!pw"])
        let basic = Data("ouders:amstel/2026!pw".utf8).base64EncodedString()
        let urlSafe = basic.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let echoes = [
            "no calendar at /private/abc123def/basic.ics",
            "no calendar at %2Fprivate%2Fabc123def%2Fbasic.ics",
            "no calendar at %2fprivate%2fabc123def%2fbasic.ics",
            #"no calendar at \/private\/abc123def\/basic.ics"#,
            #"no calendar at /private/abc123def/basic.ics"#,
            "no calendar at &#47;private&#x2F;abc123def&#47;basic.ics",
            "calendar abc123def is gone",
            "unknown key Qz7tokenValue99",
            "unknown key Qz7token%56alue99",
            "query was token=Qz7tokenValue99&lang=nl",
            "credentials \(basic) refused",
            "credentials \(urlSafe.replacingOccurrences(of: "=", with: "")) refused",
            "header Basic%20\(basic) refused",
            "login ouders:amstel%2f2026%21pw refused",
            "fetching https://ouders:amstel%2F2026%21pw@calendar.example.org/ failed",
        ]
        let secrets = ["abc123def", "Qz7tokenValue99", "Qz7token%56alue99", basic, "amstel", "2026%21pw", "2026!pw"]
        for echo in echoes {
            let text = redactor.redact(secretsIn: echo)
            for secret in secrets { #expect(!text.contains(secret), "\(echo) → \(text)") }
            #expect(text.contains(SecretRedactor.mask), "\(echo) → \(text)")
        }
        // Plain words of the address are not secrets: "basic.ics", "calendar", "nl".
        #expect(redactor.redact(secretsIn: "basic.ics calendar lang nl") == "basic.ics calendar lang nl")
        // A body that is not about any secret is left as it is, byte for byte.
        let body = Data(#"{"success":true,"detail":"no such calendar"}"#.utf8)
        #expect(redactor.redact(body) == body)
    }

    /// Header values and URL credentials seen in any message, whoever's they are.
    @Test func headerValuesAndURLCredentialsAreScrubbed() {
        let cases: [(String, [String])] = [
            ("you sent Authorization: Digest username=anna, response=6629fae4\nnext", ["anna", "6629fae4"]),
            (#"headers {"authorization": "Token t0k3n-v4lue", "host": "x"}"#, ["t0k3n-v4lue"]),
            (#"{"Cookie": "a=b; theme=dark; tickedify.sid=s%3Axyz"}"#, ["theme=dark", "s%3Axyz"]),
            (#"{"detail":"echo {\"cookie\": \"theme=dark; remember=r3m\\\"x\", \"a\": 1}"}"#, ["theme=dark", "r3m"]),
            ("{'Proxy-Authorization': 'Basic cHJveHk6c2VjcmV0'}", ["cHJveHk6c2VjcmV0"]),
            ("Cookie: prefs=1; remember_me=r3m3mb3r", ["remember_me", "r3m3mb3r"]),
            ("fetch https://anna:hunter2@example.org/feed failed", ["anna", "hunter2"]),
            ("auth Bearer%20abc.def.ghi1 refused", ["abc.def.ghi1"]),
        ]
        for (text, secrets) in cases {
            let scrubbed = BackendError.scrub(text)
            for secret in secrets { #expect(!scrubbed.contains(secret), "\(text) → \(scrubbed)") }
            #expect(scrubbed.contains(SecretRedactor.mask), "\(text) → \(scrubbed)")
        }
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
