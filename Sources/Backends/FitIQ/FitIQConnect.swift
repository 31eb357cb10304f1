import Foundation
import Model

/// `daygate connect fitiq`: e-mail and password once; only the refresh token is kept (the
/// client rotates it on every refresh and keeps the new one). The config's `fitiq` section
/// names the server, the app's API key and the e-mail address.
public struct FitIQConnect: BackendConnector {
    public init() {}

    public var backend: String { FitIQSettings.backend }

    public var summary: String { "e-mail and password once; keeps only the refresh token" }

    func login(_ settings: FitIQSettings) -> RefreshTokenLogin {
        RefreshTokenLogin(
            backend: backend, displayName: "FitIQ", baseURL: settings.endpoint.baseURL, loginPath: "/api/v1/auth/login",
            headers: [("X-API-Key", settings.apiKey.reveal())], timeout: settings.endpoint.timeout.seconds)
    }

    public func connect(_ context: ConnectContext) async throws -> String {
        let settings = try context.settings(FitIQSettings.self)
        return try await login(settings).connect(email: settings.email, context: context)
    }

    public func list(_ context: ConnectContext) async throws -> [String] {
        let settings = try context.settings(FitIQSettings.self)
        return await login(settings).list(context, scope: FitIQClient.scope(settings).description)
    }

    public func remove(_ id: String, context: ConnectContext) async throws -> String {
        let settings = try context.settings(FitIQSettings.self)
        return try await login(settings).remove(context, scope: FitIQClient.scope(settings).description)
    }

    /// Today's food-log summary: an authenticated call that changes nothing.
    public func check(_ context: OperationContext) async -> [CredentialCheck] {
        guard let settings = context.profile.fitiq else { return [] }
        do {
            _ = try await FitIQClient(settings: settings, context: context).get(
                "/api/v1/food-logs/summary", query: [("date", context.today.description)])
            return [CredentialCheck(ok: true, message: "logged in")]
        } catch {
            return [CredentialCheck.failure(error, backend: backend)]
        }
    }

    public func starterSection(email: String) -> [String] {
        [
            "fitiq:                       # then: daygate connect fitiq (keeps only a refresh token)",
            "  base_url: https://fit-iq-backend.fly.dev",
            "  api_key: ${FITIQ_API_KEY}  # the FitIQ app's API key (X-API-Key), from the environment",
            "  email: \(email)",
        ]
    }

    public func nextSteps(configPath: String) -> [String] {
        ["export FITIQ_API_KEY=…   # the FitIQ app's API key", "daygate connect fitiq --config \(configPath)"]
    }
}
