import Crypto
import Foundation

/// A short one-way fingerprint of a credential, used in cache keys so that entries fetched
/// with one credential are never served for another. The secret itself is never stored.
public enum CredentialFingerprint {
    public static let none = "none"

    public static func of(_ parts: [String]) -> String {
        let meaningful = parts.filter { !$0.isEmpty }
        guard !meaningful.isEmpty else { return none }
        var hasher = SHA256()
        hasher.update(data: Data("daygate-credential-v1".utf8))
        for part in meaningful {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
        let hex = Array("0123456789abcdef".utf8)
        let bytes = hasher.finalize().prefix(8).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
