import Crypto
import Foundation

/// A short one-way fingerprint of a credential, used in cache keys so that entries fetched
/// with one credential are never served for another. The secret itself is never stored.
public enum CredentialFingerprint {
    public static let none = "none"

    /// SHA-256 over `daygate-credential-v1`, then each non-empty part followed by a zero byte;
    /// the first 8 bytes in lower-case hex. Every cold section makes a few (scopes, feeds), so
    /// the parts are hashed in place, without a `Data` each.
    public static func of(_ parts: [String]) -> String {
        guard parts.contains(where: { !$0.isEmpty }) else { return none }
        var hasher = SHA256()
        domain.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        for part in parts where !part.isEmpty {
            var part = part
            part.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            withUnsafeBytes(of: UInt8(0)) { hasher.update(bufferPointer: $0) }
        }
        var text: [UInt8] = []
        text.reserveCapacity(16)
        for byte in hasher.finalize().prefix(8) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let domain: [UInt8] = Array("daygate-credential-v1".utf8)
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}
