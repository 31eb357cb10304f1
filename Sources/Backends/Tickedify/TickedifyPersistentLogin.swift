import Foundation
import Model
import NIOHTTP1

/// Tickedify's persistent login link (`/al/<token>`), which `daygate connect tickedify` keeps
/// instead of the password (see docs/backends/tickedify.md):
///
/// - `GET /api/auth/generate-persistent-token` (with a session) answers
///   `{"success":true,"token":"<60 hex>","url":"…/al/<token>"}`;
/// - `GET /al/<token>` answers `302 Location: /app` with a fresh `Set-Cookie: tickedify.sid=…`
///   for a token the server knows, and the same 302 *without* a cookie for any other;
/// - neither is rate limited (the password login allows 5 attempts per 15 minutes).
///
/// The token is kept in the vault with the account (e-mail) it belongs to; the gateway uses it
/// to get a new cookie whenever it would otherwise log in with a password.
public enum TickedifyPersistentLogin {
    /// Vault record of the token.
    public static let tokenName = "persistent_token"
    /// Vault record of the e-mail address the token belongs to.
    public static let accountName = "persistent_token.account"

    /// The token in `text`: a pasted link (`https://tickedify.com/al/<token>`) or the token
    /// itself (hex); nil when it is neither.
    public static func token(in text: String) -> String? {
        var candidate = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let range = candidate.range(of: "/al/") {
            candidate = String(candidate[range.upperBound...])
            if let end = candidate.firstIndex(where: { $0 == "?" || $0 == "#" || $0 == "/" }) {
                candidate = String(candidate[..<end])
            }
        }
        let isHex = candidate.count >= 32 && candidate.allSatisfy { $0.isHexDigit }
        return isHex ? candidate.lowercased() : nil
    }

    /// The token in the answer of `generate-persistent-token` (`{"success":true,"token":…}`).
    static func token(inAnswer value: JSONValue) -> String? {
        value["token"]?.stringValue.flatMap { token(in: $0) }
    }

    /// The kept token when it belongs to `email`.
    public static func stored(vault: any CredentialVault, profile: String, email: String) async -> String? {
        let backend = TickedifyClient.backend
        guard let token = await vault.value(profile: profile, backend: backend, name: tokenName),
            await vault.value(profile: profile, backend: backend, name: accountName) == email
        else { return nil }
        return token
    }

    /// Keeps `token` for `email` (nil forgets it); what was known of the link before goes.
    public static func store(_ token: String?, email: String, vault: any CredentialVault, profile: String) async throws
    {
        let backend = TickedifyClient.backend
        try await vault.setValue(token, profile: profile, backend: backend, name: tokenName)
        try await vault.setValue(token == nil ? nil : email, profile: profile, backend: backend, name: accountName)
        try await setHealth(TickedifyLinkHealth(), vault: vault, profile: profile)
    }

    /// How the kept link has fared (`TickedifyLinkHealth`).
    public static func health(vault: any CredentialVault, profile: String) async -> TickedifyLinkHealth {
        TickedifyLinkHealth(
            record: await vault.value(
                profile: profile, backend: TickedifyClient.backend, name: TickedifyLinkHealth.vaultName))
    }

    static func setHealth(_ health: TickedifyLinkHealth, vault: any CredentialVault, profile: String) async throws {
        try await vault.setValue(
            health.record, profile: profile, backend: TickedifyClient.backend, name: TickedifyLinkHealth.vaultName)
    }

    /// `GET /al/<token>`: the session cookie it sets, or nil when the server did not know the
    /// token (its 302 then carries no cookie).
    public static func login(
        token: String, baseURL: String, http: UpstreamHTTP, timeout: TimeInterval, source: UpstreamSource,
        now: Date
    ) async throws -> TickedifySessionCookie? {
        let response = try await http.send(
            .GET, url: baseURL + "/al/" + token, timeout: timeout, source: source, gate: false, retry: .none)
        guard response.status == 302 || response.isSuccess else {
            throw UpstreamHTTP.error(for: response, backend: TickedifyClient.backend)
        }
        return TickedifySessionCookie.parse(
            response.headers[canonicalForm: "Set-Cookie"].map(String.init), name: TickedifyClient.cookieName,
            serverDate: response.headers.first(name: "Date"), now: now)
    }

    /// `GET /api/auth/generate-persistent-token` with `cookie`: a new token.
    public static func generate(
        cookie: String, baseURL: String, http: UpstreamHTTP, timeout: TimeInterval, source: UpstreamSource
    ) async throws -> String {
        let response = try await http.send(
            .GET, url: baseURL + "/api/auth/generate-persistent-token", headers: [("Cookie", cookie)],
            timeout: timeout, source: source, gate: false)
        guard response.isSuccess else {
            throw UpstreamHTTP.error(for: response, backend: TickedifyClient.backend)
        }
        guard let value = try? JSONValue(parsing: response.body),
            let token = Self.token(inAnswer: value)
        else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend,
                message: "Tickedify answered the request for a persistent login link without a token")
        }
        return token
    }
}
