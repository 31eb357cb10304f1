import Foundation
import Model

/// What a cache entry is for: profile + operation + normalised typed arguments + a fingerprint
/// of the credential used (never the secret). One profile never sees another's entries.
///
/// The key stays typed wherever the cache uses it (invalidation predicates see
/// `ArgumentValue`s); `storageKey` is only the name its row and memory slot go by.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The profile whose entry this is.
    public let profile: String
    /// The backend operation (`eightalls.events`).
    public let operation: String
    /// The normalised arguments; empty strings are left out (as if not given).
    public let arguments: [String: ArgumentValue]
    /// A fingerprint of the credential the entry was fetched with (never the secret).
    public let credentialFingerprint: String
    /// The single string the entry is stored under:
    /// `profile|operation|name=value&…|fingerprint`, the arguments sorted by name and written
    /// in their canonical text (`ArgumentValue.description`), every part percent-escaped.
    /// Two keys are equal when their storage keys are.
    public let storageKey: String

    /// - Parameter arguments: the operation's normalised arguments; those whose text is empty
    ///   are left out.
    public init(
        profile: String, operation: String, arguments: [String: ArgumentValue], credentialFingerprint: String
    ) {
        self.profile = profile
        self.operation = operation
        self.credentialFingerprint = credentialFingerprint
        let kept = arguments.filter { !$0.value.description.isEmpty }
        self.arguments = kept
        let query = kept.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(Self.escape($0.value.description))" }
            .joined(separator: "&")
        self.storageKey = [profile, operation, query, credentialFingerprint].map(Self.escape).joined(separator: "|")
    }

    /// The storage key.
    public var description: String { storageKey }

    /// Whether this key is one of `operation`'s entries for `profile`.
    public func belongs(toProfile profile: String, operation: String) -> Bool {
        self.profile == profile && self.operation == operation
    }

    /// Whether both are stored under the same key.
    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool { lhs.storageKey == rhs.storageKey }
    /// Hashes the storage key.
    public func hash(into hasher: inout Hasher) { hasher.combine(storageKey) }

    private static func escape(_ value: String) -> String {
        // What `addingPercentEncoding` would leave as it is, without building a new string.
        if allowedASCII.containsAll(of: value) { return value }
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// The ASCII part of ``allowed``.
    private static let allowedASCII = ASCIIByteSet(lettersDigitsAnd: "-._~:=&%")

    private static let allowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~:=&%")
        return set
    }()
}
