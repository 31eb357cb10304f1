import Foundation
import Model
import NIOHTTP1

/// PRSNL over HTTP (docs/backends/prsnl.md): a static Bearer token, or an access token from
/// email/password with a rotating refresh token (kept in the vault, written before use).
/// 429s carry `Retry-After`, which the cache obeys.
public struct PRSNLClient: Sendable {
    public static let backend = "prsnl"
    public var settings: PRSNLSettings
    public var http: UpstreamHTTP
    public var access: AuthSession
    private let vault: any CredentialVault
    private let profile: String
    private let source: UpstreamSource

    public init(settings: PRSNLSettings, context: OperationContext) {
        self.settings = settings
        self.http = context.http
        let scope = Self.scope(settings).description
        self.access = context.sessions.session(profile: scope, backend: Self.backend, name: "access_token")
        self.vault = context.vault
        self.profile = scope
        self.source = UpstreamSource(profile: context.profileName, backend: Self.backend)
    }

    static func make(_ context: OperationContext) throws -> PRSNLClient {
        guard let settings = context.profile.prsnl else {
            throw BackendError(
                .notConfigured, backend: backend, message: "PRSNL is not configured for profile \(context.profileName)")
        }
        return PRSNLClient(settings: settings, context: context)
    }

    /// Where the account's tokens are kept: the base URL and the e-mail, or the static token's
    /// fingerprint (`AccountScope`), not the profile's name.
    public static func scope(_ settings: PRSNLSettings) -> AccountScope {
        AccountScope(
            baseURL: settings.endpoint.baseURL,
            account: settings.email ?? "token:" + CredentialFingerprint.of([settings.token?.reveal() ?? ""]))
    }

    public static func fingerprint(_ settings: PRSNLSettings) -> String {
        CredentialFingerprint.of([settings.endpoint.baseURL, settings.email ?? settings.token?.reveal() ?? ""])
    }

    /// A request with the Bearer token (`authorized`), retried once after a refresh on 401.
    /// With `verifyFirst` the token is checked on a route that enforces it (`GET /api/tags`)
    /// beside `path`, and `path`'s answer used only when the check passed: routes such as the
    /// timeline silently fall back to a hard-coded test user for an invalid token
    /// (docs/backends/prsnl.md, "Authentication") instead of answering 401. A GET goes out with
    /// the check (one round trip); anything else after it.
    /// With `notFoundIsAnswer` PRSNL's 404 (an item that does not exist) is not counted against
    /// the source (`UpstreamHTTP.send`); it is still thrown as `upstream_rejected` with status 404.
    /// `limited` names a route PRSNL rate-limits on its own (`Limited`): its 429 and the
    /// `Retry-After` it sets hold back that route's calls only, not the timeline, tags or items.
    public func request(
        _ path: String, method: HTTPMethod = .GET, query: [(String, String?)] = [], body: Data? = nil,
        authorized: Bool = true,
        verifyFirst: Bool = false, notFoundIsAnswer: Bool = false, limited: Limited? = nil
    ) async throws -> JSONValue {
        let source =
            limited.map { UpstreamSource(profile: self.source.profile, backend: Self.backend, scope: $0.rawValue) }
            ?? self.source
        let url = settings.endpoint.baseURL + path + (query.isEmpty ? "" : "?" + QueryString.encode(query))
        var token = authorized ? try await validToken() : nil
        var response: UpstreamHTTP.Response
        if authorized, verifyFirst {
            // The check and a read go out together (one round trip, not two, to a far server);
            // the read's answer is used only when the check passed.
            let tags = settings.endpoint.baseURL + "/api/tags"
            let sent = token
            async let checked = send(.GET, url: tags, body: nil, token: sent, source: self.source)
            async let read: UpstreamHTTP.Response? =
                method == .GET
                ? send(method, url: url, body: body, token: sent, notFoundIsAnswer: notFoundIsAnswer, source: source)
                : nil
            let check = try await checked
            if check.status == 401 {
                token = try await renew(after: token)
                response = try await send(
                    method, url: url, body: body, token: token, notFoundIsAnswer: notFoundIsAnswer, source: source)
            } else if !check.isSuccess {
                throw UpstreamHTTP.error(for: check, backend: Self.backend)
            } else if let early = try await read {
                response = early
            } else {
                response = try await send(
                    method, url: url, body: body, token: token, notFoundIsAnswer: notFoundIsAnswer, source: source)
            }
        } else {
            response = try await send(
                method, url: url, body: body, token: token, notFoundIsAnswer: notFoundIsAnswer, source: source)
        }
        if response.status == 401, authorized {
            token = try await renew(after: token)
            response = try await send(
                method, url: url, body: body, token: token, notFoundIsAnswer: notFoundIsAnswer, source: source)
        }
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        guard let value = try? JSONValue(parsing: response.body) else {
            throw BackendError(.badResponse, backend: Self.backend, message: "PRSNL sent an answer that is not JSON")
        }
        return value
    }

    /// A new access token after `stale` was refused (single-flight); a refused static token is
    /// the config's problem.
    private func renew(after stale: String?) async throws -> String {
        guard settings.token == nil else {
            throw BackendError(
                .reauthRequired, backend: Self.backend,
                message: "PRSNL refused the configured token; configure a new one", status: 401, retryAfter: 600)
        }
        return try await access.renew(replacing: stale) { [self] in try await obtainAccessToken() }
    }

    private func validToken() async throws -> String {
        if let token = settings.token { return token.reveal() }
        if let token = await access.current(), !JWTClaims.expiresSoon(token) { return token }
        let stale = await access.current()
        return try await access.renew(replacing: stale) { [self] in try await obtainAccessToken() }
    }

    /// A new access token from the kept refresh token, else the password; holding the vault's
    /// lease, as other processes (`daygate check`) share the vault and PRSNL revokes a refresh
    /// token once it is used.
    func obtainAccessToken() async throws -> String {
        try await VaultLease(vault: vault, profile: profile, backend: Self.backend, name: "refresh_lease").run {
            try await obtainAccessTokenHoldingTheLease()
        }
    }

    private func obtainAccessTokenHoldingTheLease() async throws -> String {
        if let refresh = await vault.value(profile: profile, backend: Self.backend, name: "refresh_token") {
            let response = try await post("/api/auth/refresh", ["refresh_token": refresh])
            if response.isSuccess { return try await accept(response) }
            guard [400, 401, 403].contains(response.status) else {
                throw UpstreamHTTP.error(for: response, backend: Self.backend)
            }
            let reason = UpstreamErrorMessage.extract(from: response.body)
            guard Self.provesSpent(status: response.status, message: reason) else {
                // A proxy's or a misrouted answer: the token is kept and tried again later.
                throw BackendError(
                    .reauthSuspected, backend: Self.backend,
                    message:
                        "PRSNL refused the kept login (\(reason ?? "HTTP \(response.status)")) without saying the token is spent; it is kept and tried again later",
                    status: response.status, retryAfter: 60)
            }
            // Only the token sent: one another process stored since is not this refusal's.
            try await vault.removeValue(
                ifStill: refresh, profile: profile, backend: Self.backend, name: "refresh_token")
        }
        guard let email = settings.email, let password = settings.password else {
            throw BackendError(
                .reauthRequired, backend: Self.backend,
                message:
                    "there is no PRSNL login kept for \(settings.email ?? "this profile"); run `daygate connect prsnl`",
                retryAfter: 600)
        }
        let response = try await post("/api/auth/login", ["email": email, "password": password.reveal()])
        guard response.isSuccess else {
            if [400, 401, 403].contains(response.status) {
                throw BackendError(
                    .reauthRequired, backend: Self.backend,
                    message: "PRSNL refused the configured email and password; fix them in the config",
                    status: response.status, retryAfter: 600)
            }
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
        return try await accept(response)
    }

    /// Whether a refused refresh proves the token spent: PRSNL answers a revoked, expired or
    /// unknown refresh token with 401 `{"detail":"Invalid or expired refresh token"}`
    /// (`api/auth.py`); any other refusal (a proxy's 403, a 400) does not prove it.
    static func provesSpent(status: Int, message: String?) -> Bool {
        status == 401 && (message?.lowercased().contains("refresh token") ?? false)
    }

    private func accept(_ response: UpstreamHTTP.Response) async throws -> String {
        let tokens = try Self.tokens(response.body)
        if let refresh = tokens.refresh {
            try await vault.setValue(refresh, profile: profile, backend: Self.backend, name: "refresh_token")
        }
        return tokens.access
    }

    /// The tokens in a login or refresh answer.
    static func tokens(_ body: Data) throws -> (access: String, refresh: String?) {
        guard let value = try? JSONValue(parsing: body),
            let fields = LenientFields(value), let accessToken = fields.string("access_token")
        else {
            throw BackendError(.badResponse, backend: Self.backend, message: "PRSNL's token answer had no access_token")
        }
        return (accessToken, fields.string("refresh_token"))
    }

    private func post(_ path: String, _ body: [String: String]) async throws -> UpstreamHTTP.Response {
        try await http.send(
            .POST, url: settings.endpoint.baseURL + path, body: try JSONCoding.encode(body),
            timeout: settings.endpoint.timeout.seconds, source: source
        )
    }

    private func send(
        _ method: HTTPMethod, url: String, body: Data?, token: String?, notFoundIsAnswer: Bool = false,
        source: UpstreamSource
    ) async throws -> UpstreamHTTP.Response {
        try await http.send(
            method, url: url, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [], body: body,
            timeout: settings.endpoint.timeout.seconds, source: source, notFoundIsAnswer: notFoundIsAnswer
        )
    }

    /// The routes PRSNL rate-limits (slowapi decorators; every other route has no limit): each
    /// is a source scope of its own, so a capture's 429 never holds back a read.
    public enum Limited: String, Sendable {
        /// `POST /api/capture`: 30 a minute.
        case capture
        /// `POST /api/search/`: 50 a minute.
        case search
    }
}
