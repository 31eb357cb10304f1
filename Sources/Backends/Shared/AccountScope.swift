import Model

/// Where a backend keeps what belongs to one account on one server — its session cookie or
/// tokens, in memory (`SessionRegistry`) and in the vault — instead of under the profile's
/// name: when a profile's e-mail changes, the old account's cookie or token is not used for
/// the new one, and two profiles of one account share one session. The scope is a
/// fingerprint of the server's base URL and the account (never the secret itself), used in
/// the vault's `profile` column.
public struct AccountScope: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    /// The account `account` (an e-mail, or a fingerprint of a configured token) at `baseURL`.
    public init(baseURL: String, account: String) {
        description = "account:" + CredentialFingerprint.of([Self.canonical(baseURL), account])
    }

    /// What one server shares among its accounts (a login budget counted per client address).
    public static func server(_ baseURL: String) -> String {
        "server:" + CredentialFingerprint.of([canonical(baseURL)])
    }

    /// `https://Host/` and `https://host` are one server.
    static func canonical(_ baseURL: String) -> String {
        var text = baseURL.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
