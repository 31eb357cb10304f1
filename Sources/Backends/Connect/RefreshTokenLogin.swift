import Foundation
import Model
import NIOHTTP1

/// The connect flow of a backend whose login gives an access token and a rotating refresh
/// token (FitIQ, PRSNL): e-mail and password once, then only the tokens are kept, under the
/// vault names the backend's client reads (`refresh_token`, `access_token`), under the
/// account's scope (`AccountScope` of the server and the e-mail), where the client looks. The
/// password is sent once and kept nowhere.
public struct RefreshTokenLogin: Sendable {
    public var backend: String
    /// The person's name for it (`FitIQ`).
    public var displayName: String
    public var loginURL: String
    /// The server's base URL: with the e-mail, the account's scope in the vault.
    public var baseURL: String
    /// Extra headers of the login call (FitIQ's `X-API-Key`).
    public var headers: [(String, String)]
    public var timeout: TimeInterval

    public init(
        backend: String, displayName: String, baseURL: String, loginPath: String, headers: [(String, String)] = [],
        timeout: TimeInterval
    ) {
        self.backend = backend
        self.displayName = displayName
        self.baseURL = baseURL
        self.loginURL = baseURL + loginPath
        self.headers = headers
        self.timeout = timeout
    }

    /// Asks for the password of `email` (the config's, else asked), logs in and keeps the tokens.
    public func connect(email configured: String?, context: ConnectContext) async throws -> String {
        let prompt = context.prompt
        let email = try configured ?? prompt.ask("email", "\(displayName) e-mail address")
        let password = Secret(try prompt.askSecret("password", "\(displayName) password for \(email)"))
        let body = try JSONCoding.encode(["email": email, "password": password.reveal()])
        let response = try await context.http.send(
            .POST, url: loginURL, headers: headers, body: body,
            timeout: timeout, source: context.source(backend), gate: false, retry: .none)
        guard response.isSuccess else {
            switch response.status {
            case 400, 401, 403, 422:
                throw ConnectError("\(displayName) did not accept that e-mail address and password; nothing was kept")
            case 429:
                throw ConnectError("\(displayName) refuses logins for a while (too many attempts); try again later")
            default:
                throw ConnectError(
                    "\(displayName) answered the login with HTTP \(response.status); nothing was kept, try again later")
            }
        }
        guard let (refresh, access) = Self.tokens(response.body) else {
            throw ConnectError("\(displayName) accepted the login but sent no refresh token; nothing was kept")
        }
        let scope = AccountScope(baseURL: baseURL, account: email).description
        try await context.vault.setValue(refresh, profile: scope, backend: backend, name: "refresh_token")
        try await context.vault.setValue(access, profile: scope, backend: backend, name: "access_token")
        try await context.vault.setValue(email, profile: scope, backend: backend, name: "refresh_token.account")
        var lines = [
            "Connected \(displayName) as \(email) for profile \(context.profileName).",
            "Kept in the vault: a refresh token (renewed on every use); the password was not kept.",
        ]
        if configured == nil {
            lines.append("Put `email: \(email)` in the profile's \(backend) section of the config.")
        }
        return lines.joined(separator: "\n")
    }

    /// The refresh and access tokens in a login answer (wrapped in `data` or not); nil without both.
    static func tokens(_ body: Data) -> (refresh: String, access: String)? {
        guard let value = try? JSONValue(parsing: body),
            let fields = LenientFields(value["data"] ?? value),
            let refresh = fields.string("refresh_token"), let access = fields.string("access_token")
        else { return nil }
        return (refresh, access)
    }

    /// What is kept for the configured account (`scope`: its `AccountScope`).
    public func list(_ context: ConnectContext, scope: String) async -> [String] {
        guard await context.vault.value(profile: scope, backend: backend, name: "refresh_token") != nil
        else { return [] }
        let account = await context.vault.value(profile: scope, backend: backend, name: "refresh_token.account")
        return ["\(displayName): a refresh token for \(account ?? "the configured account")"]
    }

    /// Forgets the kept tokens of the configured account (`scope`: its `AccountScope`).
    public func remove(_ context: ConnectContext, scope: String) async throws -> String {
        for name in ["refresh_token", "access_token", "refresh_token.account"] {
            try await context.vault.setValue(nil, profile: scope, backend: backend, name: name)
        }
        return "Forgot the \(displayName) login of profile \(context.profileName)."
    }
}
