import Foundation
import Model
import NIOHTTP1

/// FitIQ over HTTP (docs/backends/fitiq.md): `X-API-Key` on every call plus a Bearer JWT. The
/// access token is refreshed before its `exp` or after a 401, single-flighted; refresh tokens
/// are single-use, so the rotated one is written to the vault before anything else uses it.
/// A refused refresh falls back to the password when one is configured, else the section says
/// `reauth_required` and the gateway stops trying until the config changes or the block ends.
/// Tokens are kept per account (`AccountScope`: the base URL and the e-mail, or the configured
/// refresh token), not per profile: a changed e-mail never uses the old account's tokens.
public struct FitIQClient: Sendable {
    public static let backend = "fitiq"
    public var settings: FitIQSettings
    public var http: UpstreamHTTP
    public var access: AuthSession
    private let vault: any CredentialVault
    /// Where the account's tokens are kept (the vault's `profile` column).
    private let profile: String
    /// The profile's own name, where tokens were kept before they were kept per account.
    private let profileName: String
    private let source: UpstreamSource

    public init(settings: FitIQSettings, context: OperationContext) {
        self.settings = settings
        self.http = context.http
        let scope = Self.scope(settings).description
        self.access = context.sessions.session(profile: scope, backend: Self.backend, name: "access_token")
        self.vault = context.vault
        self.profile = scope
        self.profileName = context.profileName
        self.source = UpstreamSource(profile: context.profileName, backend: Self.backend)
    }

    /// The account: the e-mail, else the configured refresh token (its fingerprint).
    public static func scope(_ settings: FitIQSettings) -> AccountScope {
        AccountScope(
            baseURL: settings.endpoint.baseURL,
            account: settings.email ?? "refresh:" + CredentialFingerprint.of([settings.refreshToken?.reveal() ?? ""]))
    }

    static func make(_ context: OperationContext) throws -> FitIQClient {
        guard let settings = context.profile.fitiq else {
            throw BackendError(
                .notConfigured, backend: backend, message: "FitIQ is not configured for profile \(context.profileName)")
        }
        return FitIQClient(settings: settings, context: context)
    }

    public static func fingerprint(_ settings: FitIQSettings) -> String {
        CredentialFingerprint.of([
            settings.endpoint.baseURL, settings.apiKey.reveal(),
            settings.email ?? settings.refreshToken?.reveal() ?? "",
        ])
    }

    /// GET `path`; returns the payload (`data` when the answer is wrapped). With
    /// `notFoundIsAnswer` FitIQ's 404 (no such food) is not counted against the source
    /// (`UpstreamHTTP.send`); it is still thrown as `upstream_rejected` with status 404.
    public func get(_ path: String, query: [(String, String?)] = [], notFoundIsAnswer: Bool = false) async throws
        -> JSONValue
    {
        let url = settings.endpoint.baseURL + path + (query.isEmpty ? "" : "?" + QueryString.encode(query))
        return try await payload(.GET, url: url, body: nil, notFoundIsAnswer: notFoundIsAnswer)
    }

    /// DELETE `path` once (FitIQ answers 204 without a body); only a 401 is sent again, after a
    /// token refresh. A 404 is FitIQ's answer that there is no such thing (`notFoundIsAnswer`).
    public func delete(_ path: String) async throws {
        let response = try await exchange(
            .DELETE, url: settings.endpoint.baseURL + path, body: nil, notFoundIsAnswer: true)
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
    }

    /// POST `body` (JSON) to `path` once; returns the payload (`data` when the answer is wrapped).
    /// Only a 401 is sent again, after a token refresh: the server wrote nothing then. A timeout
    /// or a 5xx is never retried (the write may have happened).
    public func post(_ path: String, body: Data) async throws -> JSONValue {
        try await payload(.POST, url: settings.endpoint.baseURL + path, body: body)
    }

    /// One call with the Bearer token; a 401 refreshes the token and sends again (nothing was done).
    private func exchange(_ method: HTTPMethod, url: String, body: Data?, notFoundIsAnswer: Bool) async throws
        -> UpstreamHTTP.Response
    {
        var token = try await validAccessToken()
        var response = try await send(method, url: url, body: body, token: token, notFoundIsAnswer: notFoundIsAnswer)
        if response.status == 401 {
            token = try await access.renew(replacing: token) { [self] in try await obtainAccessToken() }
            response = try await send(method, url: url, body: body, token: token, notFoundIsAnswer: notFoundIsAnswer)
        }
        return response
    }

    private func payload(_ method: HTTPMethod, url: String, body: Data?, notFoundIsAnswer: Bool = false) async throws
        -> JSONValue
    {
        let response = try await exchange(method, url: url, body: body, notFoundIsAnswer: notFoundIsAnswer)
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        return try Self.payload(response.body)
    }

    /// The payload of a 2xx answer: `data` when it is wrapped; `success: false` is a failure.
    static func payload(_ body: Data) throws -> JSONValue {
        guard let value = try? JSONValue(parsing: body) else {
            throw BackendError(.badResponse, backend: Self.backend, message: "FitIQ sent an answer that is not JSON")
        }
        if value["success"] == .bool(false) {
            throw BackendError(
                .status, backend: Self.backend,
                message: "FitIQ reported a failure: \(UpstreamErrorMessage.extract(from: body) ?? "no message")")
        }
        return value["data"] ?? value
    }

    private func validAccessToken() async throws -> String {
        if let token = await access.current(), !JWTClaims.expiresSoon(token) {
            return token
        }
        let stale = await access.current()
        return try await access.renew(replacing: stale) { [self] in try await obtainAccessToken() }
    }

    /// Refresh with the stored (or newly configured) refresh token; on refusal log in with the
    /// password if there is one. Holding the vault's lease: `daygate check` and the gateway
    /// share the vault, and a refresh token presented twice makes FitIQ revoke the login.
    func obtainAccessToken() async throws -> String {
        try await VaultLease(vault: vault, profile: profile, backend: Self.backend, name: "refresh_lease").run {
            try await obtainAccessTokenHoldingTheLease()
        }
    }

    private func obtainAccessTokenHoldingTheLease() async throws -> String {
        if let refresh = try await currentRefreshToken() {
            let response = try await postAuth("/api/v1/auth/refresh", body: ["refresh_token": refresh])
            if response.isSuccess {
                return try await acceptTokens(response)
            }
            guard response.status == 401 || response.status == 400 || response.status == 403 else {
                throw UpstreamHTTP.error(for: response, backend: Self.backend)
            }
            let reason = UpstreamErrorMessage.extract(from: response.body)
            if FitIQRefreshRefusal.classify(status: response.status, message: reason) == .unexplained {
                // A wrong API key is refused here too: the login is kept unless the key is fine.
                try await requireAcceptedAPIKey(after: response.status, reason: reason)
            }
            // Only the token sent: one another process stored since is not this refusal's.
            try await vault.removeValue(
                ifStill: refresh, profile: profile, backend: Self.backend, name: "refresh_token")
            if settings.password == nil {
                let reason = reason ?? "refused"
                throw BackendError(
                    .reauthRequired, backend: Self.backend,
                    message: "FitIQ refused the refresh token (\(reason)); run `daygate connect fitiq` to log in again",
                    status: response.status, retryAfter: 600
                )
            }
        }
        guard let email = settings.email, let password = settings.password else {
            throw BackendError(
                .reauthRequired, backend: Self.backend,
                message:
                    "there is no FitIQ login kept for \(settings.email ?? "this profile"); run `daygate connect fitiq`",
                retryAfter: 600)
        }
        let response = try await postAuth("/api/v1/auth/login", body: ["email": email, "password": password.reveal()])
        guard response.isSuccess else {
            if response.status == 401 || response.status == 400 || response.status == 403 {
                // A wrong API key is not a wrong password.
                try await requireAcceptedAPIKey(
                    after: response.status, reason: UpstreamErrorMessage.extract(from: response.body))
                throw BackendError(
                    .reauthRequired, backend: Self.backend,
                    message: "FitIQ refused the configured email and password; fix them in the config",
                    status: response.status, retryAfter: 600
                )
            }
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
        return try await acceptTokens(response)
    }

    /// Checks the API key on a route that needs it and no token (`FitIQKeyProbe`) after `/auth/*`
    /// refused with `status`; returns when the key was accepted (the refusal was the token's or
    /// the password's), throws `reauth_required` naming the key when it was refused, and
    /// `reauth_suspected` (nothing deleted, tried again later) when the check says nothing.
    private func requireAcceptedAPIKey(after status: Int, reason: String?) async throws {
        let probe = try await http.send(
            .GET, url: settings.endpoint.baseURL + FitIQKeyProbe.path,
            headers: [("X-API-Key", settings.apiKey.reveal())], timeout: settings.endpoint.timeout.seconds,
            source: source, notFoundIsAnswer: true)
        switch FitIQKeyProbe.classify(status: probe.status) {
        case .keyAccepted:
            return
        case .keyRefused:
            let said = UpstreamErrorMessage.extract(from: probe.body) ?? reason ?? "refused"
            throw BackendError(
                .reauthRequired, backend: Self.backend,
                message:
                    "FitIQ refused the configured API key (\(said)); fix `api_key` in the config — the kept login stays",
                status: probe.status, retryAfter: 600)
        case .unknown:
            throw BackendError(
                .reauthSuspected, backend: Self.backend,
                message:
                    "FitIQ refused the login (\(reason ?? "HTTP \(status)")) and its API key check answered \(probe.status); the kept login stays and is tried again later",
                status: status, retryAfter: 60)
        }
    }

    /// Stores the rotated refresh token durably, then hands out the access token.
    private func acceptTokens(_ response: UpstreamHTTP.Response) async throws -> String {
        let tokens = try Self.tokens(response.body)
        if let refreshToken = tokens.refresh {
            try await vault.setValue(refreshToken, profile: profile, backend: Self.backend, name: "refresh_token")
        }
        return tokens.access
    }

    /// The tokens in a login or refresh answer (wrapped in `data` or not).
    static func tokens(_ body: Data) throws -> (access: String, refresh: String?) {
        guard let value = try? JSONValue(parsing: body),
            let fields = LenientFields(value["data"] ?? value),
            let accessToken = fields.string("access_token")
        else {
            throw BackendError(.badResponse, backend: Self.backend, message: "FitIQ's token answer had no access_token")
        }
        return (accessToken, fields.string("refresh_token"))
    }

    /// The configured refresh token when it is new (the user pasted one), else the rotated one.
    private func currentRefreshToken() async throws -> String? {
        if let configured = settings.refreshToken?.reveal() {
            let source = CredentialFingerprint.of([configured])
            try await migrateRefreshToken(source: source)
            if await vault.value(profile: profile, backend: Self.backend, name: "refresh_source") != source {
                try await vault.setValue(source, profile: profile, backend: Self.backend, name: "refresh_source")
                try await vault.setValue(configured, profile: profile, backend: Self.backend, name: "refresh_token")
                return configured
            }
        }
        return await vault.value(profile: profile, backend: Self.backend, name: "refresh_token")
    }

    /// Tokens were kept under the profile's name before: a rotated refresh token stored there
    /// that came from the same configured token (the same account, for sure) moves to the
    /// account's scope once (refresh tokens are single-use: the configured one is spent).
    private func migrateRefreshToken(source: String) async throws {
        guard profile != profileName,
            await vault.value(profile: profile, backend: Self.backend, name: "refresh_source") == nil,
            await vault.value(profile: profileName, backend: Self.backend, name: "refresh_source") == source,
            let rotated = await vault.value(profile: profileName, backend: Self.backend, name: "refresh_token")
        else { return }
        try await vault.setValue(rotated, profile: profile, backend: Self.backend, name: "refresh_token")
        try await vault.setValue(source, profile: profile, backend: Self.backend, name: "refresh_source")
        for name in ["refresh_token", "refresh_source", "access_token", "access_token.attempts"] {
            try await vault.setValue(nil, profile: profileName, backend: Self.backend, name: name)
        }
    }

    private func postAuth(_ path: String, body: [String: String]) async throws -> UpstreamHTTP.Response {
        try await http.send(
            .POST, url: settings.endpoint.baseURL + path, headers: [("X-API-Key", settings.apiKey.reveal())],
            body: try JSONCoding.encode(body), timeout: settings.endpoint.timeout.seconds, source: source
        )
    }

    private func send(
        _ method: HTTPMethod, url: String, body: Data? = nil, token: String, notFoundIsAnswer: Bool = false
    ) async throws -> UpstreamHTTP.Response {
        try await http.send(
            method, url: url, headers: [("X-API-Key", settings.apiKey.reveal()), ("Authorization", "Bearer \(token)")],
            body: body,
            timeout: settings.endpoint.timeout.seconds, source: source, notFoundIsAnswer: notFoundIsAnswer
        )
    }
}
