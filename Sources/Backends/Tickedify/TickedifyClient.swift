import Foundation
import Model
import NIOHTTP1

/// Tickedify over HTTP (contracts/tickedify.md): a cookie session from email + `wachtwoord`.
/// The cookie lives in the vault, so a restart does not log in again; the gateway logs in only
/// after a 401 or a failed session check, single-flighted, and never after a refusal until
/// the block ends (5 logins per 15 minutes lock the account). Planning routes are called only
/// with a session verified just before (one check shared by the calls that start together):
/// the real server crashes on them without one.
public struct TickedifyClient: Sendable {
    public static let backend = "tickedify"
    public static let cookieName = "tickedify.sid"
    public var settings: TickedifySettings
    public var http: UpstreamHTTP
    public var session: AuthSession
    private let source: UpstreamSource

    public init(settings: TickedifySettings, context: OperationContext) {
        self.settings = settings
        self.http = context.http
        self.source = UpstreamSource(profile: context.profileName, backend: Self.backend)
        // Tickedify locks an account after 5 logins in 15 minutes (every attempt counts): the
        // gateway makes at most 4, leaving one for the person's own browser.
        self.session = context.sessions.session(
            profile: context.profileName, backend: Self.backend, name: "session_cookie",
            limit: AuthSession.AttemptLimit(attempts: 4, window: 900)
        )
    }

    public static func fingerprint(_ settings: TickedifySettings) -> String {
        CredentialFingerprint.of([settings.endpoint.baseURL, settings.email])
    }

    /// GET `path` with a session. With `verifyFirst`, `/api/auth/me` checks the session first
    /// (and a login follows its 401); otherwise a 401 on `path` itself leads to one login and
    /// one retry.
    public func get(_ path: String, verifyFirst: Bool) async throws -> JSONValue {
        var cookie = try await currentOrLogin()
        if verifyFirst {
            cookie = try await verified(cookie)
        }
        var response = try await send(.GET, path, cookie: cookie)
        if response.status == 401, !verifyFirst {
            cookie = try await relogin(replacing: cookie)
            response = try await send(.GET, path, cookie: cookie)
        }
        guard response.isSuccess else {
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
        guard let value = try? JSONCoding.decoder.decode(JSONValue.self, from: response.body) else {
            throw BackendError(.badResponse, backend: Self.backend, message: "Tickedify sent an answer that is not JSON")
        }
        return value
    }

    /// POST `path` with a session checked just before (`/api/auth/me`, logging in after its
    /// 401). The POST itself is sent once: a write is never retried.
    public func post(_ path: String, body: Data) async throws -> JSONValue {
        let cookie = try await verified(currentOrLogin())
        let response = try await http.send(
            .POST, url: settings.endpoint.baseURL + path, headers: [("Cookie", cookie)], body: body,
            timeout: settings.endpoint.timeout.seconds, source: source
        )
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        return (try? JSONCoding.decoder.decode(JSONValue.self, from: response.body)) ?? .null
    }

    /// `cookie` checked with `GET /api/auth/me` just now (one check shared by the calls that
    /// ask at the same time), or a fresh one from a login when Tickedify refused it.
    private func verified(_ cookie: String) async throws -> String {
        let valid = try await session.check(cookie) { [self] in
            let me = try await send(.GET, "/api/auth/me", cookie: cookie)
            if me.status == 401 { return false }
            guard me.isSuccess else { throw UpstreamHTTP.error(for: me, backend: Self.backend) }
            return true
        }
        return valid ? cookie : try await relogin(replacing: cookie)
    }

    private func currentOrLogin() async throws -> String {
        if let cookie = await session.current() { return cookie }
        return try await relogin(replacing: nil)
    }

    private func relogin(replacing stale: String?) async throws -> String {
        try await session.renew(replacing: stale) { [self] in try await login() }
    }

    /// `POST /api/auth/login`; returns the `tickedify.sid=…` cookie pair.
    func login() async throws -> String {
        let body = try JSONCoding.encode(["email": settings.email, "wachtwoord": settings.password])
        let response = try await http.send(
            .POST, url: settings.endpoint.baseURL + "/api/auth/login", body: body,
            timeout: settings.endpoint.timeout.seconds, source: source, gate: false
        )
        switch response.status {
        case 200..<300:
            for header in response.headers[canonicalForm: "Set-Cookie"] {
                let pair = header.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
                if pair.hasPrefix(Self.cookieName + "=") { return pair.trimmingCharacters(in: .whitespaces) }
            }
            throw BackendError(.badResponse, backend: Self.backend, message: "Tickedify accepted the login but set no session cookie")
        case 429:
            let wait = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds(from: $0) } ?? 900
            throw BackendError(
                .reauthBlocked, backend: Self.backend,
                message: "Tickedify allows 5 logins per 15 minutes; the gateway waits \(Int(wait)) s before logging in again",
                status: 429, retryAfter: wait
            )
        case 400, 401, 403:
            let reason = UpstreamErrorMessage.extract(from: response.body).map { " (\($0))" } ?? ""
            throw BackendError(
                .reauthRequired, backend: Self.backend,
                message: "Tickedify refused the configured email and password\(reason); fix them in the config",
                status: response.status, retryAfter: 900
            )
        default:
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
    }

    private func send(_ method: HTTPMethod, _ path: String, cookie: String) async throws -> UpstreamHTTP.Response {
        try await http.send(
            method, url: settings.endpoint.baseURL + path, headers: [("Cookie", cookie)],
            timeout: settings.endpoint.timeout.seconds, source: source
        )
    }
}
