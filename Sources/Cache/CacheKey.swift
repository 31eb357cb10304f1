import Foundation

/// What a cache entry is for: profile + operation + normalised arguments + a fingerprint of
/// the credential used (never the secret). One profile never sees another's entries.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public var profile: String
    public var operation: String
    /// Normalised arguments: sorted by name, empty values left out.
    public var arguments: [(String, String)] { argumentPairs }
    public var credentialFingerprint: String
    /// The single string the entry is stored under.
    public let storageKey: String
    private let argumentPairs: [(String, String)]

    public init(profile: String, operation: String, arguments: [String: String], credentialFingerprint: String) {
        self.profile = profile
        self.operation = operation
        self.credentialFingerprint = credentialFingerprint
        self.argumentPairs = arguments.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        let query = argumentPairs.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
        self.storageKey = [profile, operation, query, credentialFingerprint].map(Self.escape).joined(separator: "|")
    }

    public var description: String { storageKey }

    /// The start of every storage key of `operation` for `profile` (for `expire`/`invalidate`).
    public static func prefix(profile: String, operation: String) -> String {
        escape(profile) + "|" + escape(operation) + "|"
    }

    /// The arguments a storage key was made from (nil when it is not one of ours).
    public static func arguments(ofStorageKey key: String) -> [String: String]? {
        let parts = key.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, let query = parts[2].removingPercentEncoding else { return nil }
        var arguments: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard halves.count == 2, let value = halves[1].removingPercentEncoding else { return nil }
            arguments[String(halves[0])] = value
        }
        return arguments
    }

    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool { lhs.storageKey == rhs.storageKey }
    public func hash(into hasher: inout Hasher) { hasher.combine(storageKey) }

    private static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    private static let allowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~:=&%")
        return set
    }()
}
