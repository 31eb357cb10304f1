import Foundation
import Model
import Testing

@Suite("Secret")
struct SecretTests {
    struct Holder: Codable {
        var name: String
        var password: Secret
        var tokens: [Secret]
        var spare: Secret?
    }

    let holder = Holder(
        name: "anna", password: Secret("hunter2-password"), tokens: [Secret("token-one"), Secret("token-two")],
        spare: Secret("spare-key"))

    @Test func printingInterpolatingAndDumpingNeverShowTheValue() {
        var dumped = ""
        dump(holder, to: &dumped)
        let texts = [
            "\(holder)", String(describing: holder), String(reflecting: holder), dumped, "\(holder.password)",
            holder.password.description, holder.password.debugDescription,
        ]
        for text in texts {
            for value in ["hunter2-password", "token-one", "token-two", "spare-key"] {
                #expect(!text.contains(value), "\(text)")
            }
        }
        #expect("\(holder.password)" == Secret.redacted)
    }

    @Test func encodingRedactsUnlessTheOwnerAsks() throws {
        let redacted = String(decoding: try JSONEncoder().encode(holder), as: UTF8.self)
        #expect(!redacted.contains("hunter2-password"))
        #expect(redacted.contains(Secret.redacted))

        let encoder = JSONEncoder()
        encoder.userInfo[.revealSecrets] = true
        let revealed = String(decoding: try encoder.encode(holder), as: UTF8.self)
        #expect(revealed.contains("hunter2-password"))
    }

    @Test func decodingKeepsTheValueForItsBackend() throws {
        let decoded = try JSONDecoder().decode(Secret.self, from: Data(#""s3cret""#.utf8))
        #expect(decoded.reveal() == "s3cret")
        #expect(!decoded.isEmpty)
        #expect(Secret("").isEmpty)
    }

    @Test func allFindsSecretsAtAnyDepth() {
        struct Outer {
            var inner: [String: Holder]
            var plain: String
        }
        let found = Secret.all(in: Outer(inner: ["a": holder], plain: "not-a-secret")).map { $0.reveal() }
        #expect(Set(found) == ["hunter2-password", "token-one", "token-two", "spare-key"])
    }
}
