import Foundation
import Model

/// `daygate connect prsnl`: e-mail and password once; only the refresh token is kept (the
/// client rotates it on every refresh and keeps the new one).
public struct PRSNLConnect: BackendConnector {
    public init() {}

    public var backend: String { PRSNLSettings.backend }

    public var summary: String { "e-mail and password once; keeps only the refresh token" }

    func login(_ settings: PRSNLSettings) -> RefreshTokenLogin {
        RefreshTokenLogin(
            backend: backend, displayName: "PRSNL", baseURL: settings.endpoint.baseURL, loginPath: "/api/auth/login",
            timeout: settings.endpoint.timeout.seconds)
    }

    public func connect(_ context: ConnectContext) async throws -> String {
        let settings = try context.settings(PRSNLSettings.self)
        if settings.token != nil {
            context.prompt.say(
                "Note: the config gives PRSNL a static `token`, which the gateway uses instead of a login.")
        }
        return try await login(settings).connect(email: settings.email, context: context)
    }

    public func list(_ context: ConnectContext) async throws -> [String] {
        let settings = try context.settings(PRSNLSettings.self)
        return await login(settings).list(context, scope: PRSNLClient.scope(settings).description)
    }

    public func remove(_ id: String, context: ConnectContext) async throws -> String {
        let settings = try context.settings(PRSNLSettings.self)
        return try await login(settings).remove(context, scope: PRSNLClient.scope(settings).description)
    }

    /// `GET /api/tags`: a route that enforces the token.
    public func check(_ context: OperationContext) async -> [CredentialCheck] {
        guard let settings = context.profile.prsnl else { return [] }
        do {
            _ = try await PRSNLClient(settings: settings, context: context).request("/api/tags")
            return [CredentialCheck(ok: true, message: "logged in")]
        } catch {
            return [CredentialCheck.failure(error, backend: backend)]
        }
    }

    public func starterSection(email: String) -> [String] {
        [
            "prsnl:                       # then: daygate connect prsnl (keeps only a refresh token)",
            "  base_url: http://127.0.0.1:8000   # where your PRSNL server runs",
            "  email: \(email)",
        ]
    }
}
