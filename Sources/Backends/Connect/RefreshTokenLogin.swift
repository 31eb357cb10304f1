import Foundation
import Model
import NIOHTTP1

/// The connect flow of a backend whose login gives an access token and a rotating refresh
/// token (FitIQ, PRSNL): e-mail and password once, then only the tokens are kept, under the
/// vault names the backend's client reads (`refresh_token`, `access_token`). The password is
/// sent once and kept nowhere.
public struct RefreshTokenLogin: Sendable {
    public var backend: String
    /// The person's name for it (`FitIQ`).
    public var displayName: String
    public var loginURL: String
    /// Extra headers of the login call (FitIQ's `X-API-Key`).
    public var headers: [(String, String)]
    public var timeout: TimeInterval

    public init(
        backend: String, displayName: String, loginURL: String, headers: [(String, String)] = [],
        timeout: TimeInterval
    ) {
        self.backend = backend
        self.displayName = displayName
        self.loginURL = loginURL
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
        guard let value = try? JSONCoding.decoder.decode(JSONValue.self, from: response.body),
            let fields = LenientFields(value["data"] ?? value),
            let refresh = fields.string("refresh_token"), let access = fields.string("access_token")
        else {
            throw ConnectError("\(displayName) accepted the login but sent no refresh token; nothing was kept")
        }
        try await context.vault.setValue(refresh, profile: context.profileName, backend: backend, name: "refresh_token")
        try await context.vault.setValue(access, profile: context.profileName, backend: backend, name: "access_token")
        try await context.vault.setValue(
            email, profile: context.profileName, backend: backend, name: "refresh_token.account")
        var lines = [
            "Connected \(displayName) as \(email) for profile \(context.profileName).",
            "Kept in the vault: a refresh token (renewed on every use); the password was not kept.",
        ]
        if configured == nil {
            lines.append("Put `email: \(email)` in the profile's \(backend) section of the config.")
        }
        return lines.joined(separator: "\n")
    }

    /// What is kept for the profile.
    public func list(_ context: ConnectContext) async -> [String] {
        guard await context.vault.value(profile: context.profileName, backend: backend, name: "refresh_token") != nil
        else { return [] }
        let account = await context.vault.value(
            profile: context.profileName, backend: backend, name: "refresh_token.account")
        return ["\(displayName): a refresh token for \(account ?? "the configured account")"]
    }

    /// Forgets the kept tokens.
    public func remove(_ context: ConnectContext) async throws -> String {
        for name in ["refresh_token", "access_token", "refresh_token.account"] {
            try await context.vault.setValue(nil, profile: context.profileName, backend: backend, name: name)
        }
        return "Forgot the \(displayName) login of profile \(context.profileName)."
    }
}
