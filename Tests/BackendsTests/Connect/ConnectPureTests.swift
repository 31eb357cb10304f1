import Foundation
import Model
import Testing

@testable import Backends

/// The connect flows' decisions that need no server.
@Suite("Connect: pure parts")
struct ConnectPureTests {
    @Test("every Kantine Koning error code gets its own sentence, never the bare code")
    func everyCodeHasASentence() {
        var seen = Set<String>()
        for code in KantineKoningErrorSentence.knownCodes {
            let sentence = KantineKoningErrorSentence.sentence(code: code, status: 422)
            #expect(!sentence.contains(code), "\(code): \(sentence)")
            #expect(sentence.hasSuffix(".") || sentence.hasSuffix(")"), "\(code): \(sentence)")
            #expect(seen.insert(sentence).inserted, "\(code) shares its sentence")
            // Not the fallback for an unknown code.
            #expect(sentence != KantineKoningErrorSentence.sentence(code: "zz_unknown", status: 422))
        }
        #expect(
            KantineKoningErrorSentence.sentence(code: "token_revoked", reason: "season_ended", status: 401)
                != KantineKoningErrorSentence.sentence(code: "token_revoked", reason: "admin_revoked", status: 401))
        #expect(
            KantineKoningErrorSentence.sentence(code: "something_new", message: "Iets ging mis", status: 422)
                == "Kantine Koning said: Iets ging mis")
    }

    @Test("the self-made member token is the app's unsigned JSON, valid 600 s")
    func memberToken() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let token = KantineKoningEnrollmentToken(
            tenantSlug: "vvwilhelmus", tenantName: "VV Wilhelmus", teamCodes: ["JO11-3", "t2"], now: now, jti: "J")
        let data = try #require(Data(base64Encoded: token.encoded))
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(value["tenant_slug"] == .string("vvwilhelmus"))
        #expect(value["tenant_name"] == .string("VV Wilhelmus"))
        #expect(value["team_codes"] == .array([.string("JO11-3"), .string("t2")]))
        #expect(value["role"] == .string("member"))
        #expect(value["purpose"] == .string("device-enroll"))
        #expect(value["exp"] == .number(1_790_000_600))
        #expect(value["jti"] == .string("J"))
        #expect(value["max_uses"] == .number(1))
    }

    @Test("a pasted enrollment link or bare token gives the token, read as the app reads it")
    func pastedLinks() {
        #expect(
            KantineKoningEnrollmentToken.token(inPasted: "https://kantinekoning.com/device-enroll?token=abc123")
                == "abc123")
        // Only an enrollment link, as the app's DeepLink.isEnrollment: another page or site with
        // a token parameter, or a link that cannot be read, gives none (never the whole text).
        #expect(KantineKoningEnrollmentToken.token(inPasted: "https://kantinekoning.com/enroll?token=abc123") == nil)
        #expect(KantineKoningEnrollmentToken.token(inPasted: "https://example.org/device-enroll?token=abc123") == nil)
        #expect(
            KantineKoningEnrollmentToken.token(inPasted: "kantinekoning://device-enroll?token=[")
                != "kantinekoning://device-enroll?token=[")
        // The e-mail's HTML writes & as &amp;: the app turns it back before it reads `token`.
        #expect(
            KantineKoningEnrollmentToken.token(
                inPasted: "https://kantinekoning.com/device-enroll?tenant=vvwilhelmus&amp;token=abc123") == "abc123")
        #expect(
            KantineKoningEnrollmentToken.token(inPasted: "kantinekoning://device-enroll?x=1&amp;token=abc123")
                == "abc123")
        // A link without a token has none: its last segment is not one.
        #expect(KantineKoningEnrollmentToken.token(inPasted: "https://kantinekoning.com/device-enroll") == nil)
        #expect(KantineKoningEnrollmentToken.token(inPasted: " https://kantinekoning.com/enroll/abc123 \n") == nil)
        #expect(KantineKoningEnrollmentToken.token(inPasted: "abc123") == "abc123")
        #expect(KantineKoningEnrollmentToken.token(inPasted: "two words") == nil)
        #expect(KantineKoningEnrollmentToken.token(inPasted: "  ") == nil)
    }

    @Test("Kantine Koning's register: daygate's version and build; any role but member is a manager's, as in the app")
    func kantineKoningRegister() throws {
        let body = KantineKoningConnect.API.registerBody("T", device: "D")
        #expect(body["app_version"] == .string(DaygateVersion.current))
        #expect(body["build_number"] == .string(DaygateVersion.build))
        #expect(body["enrollment_token"] == .string("T") && body["hardware_identifier"] == .string("D"))
        func answer(role: String?) -> JSONValue {
            var fields: [(String, JSONValue)] = [
                ("tenant_slug", .string("vvwilhelmus")), ("tenant_name", .string("VV Wilhelmus")),
                ("api_token", .string("tok")), ("team_codes", .array([.string("JO11-3")])),
            ]
            if let role { fields.append(("role", .string(role))) }
            return .object(JSONObject(fields: fields))
        }
        #expect(try KantineKoningConnect.API.enrollment(answer(role: nil), now: Date()).role == "manager")
        #expect(try KantineKoningConnect.API.enrollment(answer(role: "member"), now: Date()).role == "member")
        #expect(try KantineKoningConnect.API.enrollment(answer(role: "teamleider"), now: Date()).role == "manager")
    }

    @Test("a Tickedify login link or token is recognised; a password is not")
    func tickedifyLinks() {
        let hex = String(repeating: "ab12", count: 15)
        #expect(TickedifyPersistentLogin.token(in: "https://tickedify.com/al/\(hex)") == hex)
        #expect(TickedifyPersistentLogin.token(in: "http://127.0.0.1:9100/al/\(hex)?x=1") == hex)
        #expect(TickedifyPersistentLogin.token(in: hex.uppercased()) == hex)
        #expect(TickedifyPersistentLogin.token(in: "Tulpen-Fiets-2026!") == nil)
        #expect(TickedifyPersistentLogin.token(in: "https://tickedify.com/al/not-hex") == nil)
    }

    @Test("choices are named by key, label or number")
    func choices() {
        let choices = [
            ConnectChoice(key: "member", label: "as a member"), ConnectChoice(key: "email", label: "by e-mail"),
        ]
        #expect(ConnectChoice.pick("email", from: choices) == [1])
        #expect(ConnectChoice.pick("AS A MEMBER", from: choices) == [0])
        #expect(ConnectChoice.pick("2, 1", from: choices) == [1, 0])
        #expect(ConnectChoice.pick("3", from: choices) == nil)
        #expect(ConnectChoice.pick("other", from: choices) == nil)
    }

    @Test("configs may name the account only: the logins come from the vault")
    func accountOnlySections() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-connect-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("daygate.yaml").path
        try """
        profiles:
          default:
            tickedify: {base_url: "http://t", email: a@b.c}
            kantinekoning: {base_url: "http://k"}
            fitiq: {base_url: "http://f", api_key: k, email: a@b.c}
            prsnl: {base_url: "http://p", email: a@b.c}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let profile = try #require(
            try ConfigLoader.load(path: file, backends: BackendCatalog.settings).profiles["default"])
        #expect(profile.tickedify?.password == nil)
        #expect(profile.kantinekoning?.enrollments == [])
        #expect(profile.fitiq?.password == nil)
        #expect(profile.fitiq?.refreshToken == nil)
        #expect(profile.prsnl?.password == nil)
    }
}
