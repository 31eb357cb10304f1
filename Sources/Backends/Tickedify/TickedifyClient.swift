import Foundation
import Logging
import Model
import NIOHTTP1

/// Tickedify over HTTP (see docs/backends/tickedify.md): a cookie session from email +
/// `wachtwoord`. The cookie and its expiry live in the vault, so a restart does not log in
/// again; the gateway logs in after a 401 or a failed session check, and once ahead of time
/// when the cookie is within an hour of its expiry, single-flighted, and never after a refusal
/// until the block ends (5 logins per 15 minutes lock the account).
///
/// The real server crashes when a planning route is called without a valid session, so those
/// calls (and the task lists, which answer 404 without one) go out only with a session proven
/// within the trust window (`session_trust`, `TickedifySessionTrust`) or checked just before
/// with `GET /api/auth/me` (one check shared by the calls that start together); they are never
/// retried automatically, and any failure of theirs ends the trust.
public struct TickedifyClient: Sendable {
    public static let backend = "tickedify"
    public static let cookieName = "tickedify.sid"

    /// What a GET needs from the session.
    public enum SessionUse: Sendable {
        /// The route answers 401 without a session: a 401 leads to one login and one retry
        /// (`/api/counts/sidebar`).
        case loginOn401
        /// The route misbehaves without a session (a planning route crashes the server, a task
        /// list answers 404): it is called only with a session proven within the trust window or
        /// checked just before, it is never retried automatically, and any failure of it ends
        /// the trust.
        case provenFirst
    }

    public var settings: TickedifySettings
    public var http: UpstreamHTTP
    /// The account's session, shared by every request of the profile.
    public var session: TickedifySession
    private let source: UpstreamSource
    private let logger: Logger

    public init(settings: TickedifySettings, context: OperationContext) {
        self.settings = settings
        self.http = context.http
        self.logger = context.logger
        self.source = UpstreamSource(profile: context.profileName, backend: Self.backend)
        self.session = context.sessions.tickedifySession(
            scope: Self.scope(settings), baseURL: settings.endpoint.baseURL,
            policy: TickedifySessionTrust.Policy(
                window: settings.sessionTrust.seconds, keepWarm: settings.sessionKeepWarm.seconds)
        )
    }

    /// Where the account's session is kept: the server and the e-mail, not the profile.
    public static func scope(_ settings: TickedifySettings) -> AccountScope {
        AccountScope(baseURL: settings.endpoint.baseURL, account: settings.email)
    }

    public static func fingerprint(_ settings: TickedifySettings) -> String {
        CredentialFingerprint.of([settings.endpoint.baseURL, settings.email])
    }

    /// GET `path` with a session, as `use` says.
    public func get(_ path: String, session use: SessionUse) async throws -> JSONValue {
        var cookie = try await currentCookie()
        cookie = try await withAccess(cookie)
        let response: UpstreamHTTP.Response
        switch use {
        case .provenFirst:
            response = try await proven(.GET, path, cookie: cookie)
        case .loginOn401:
            var answer = try await send(.GET, path, cookie: cookie)
            if answer.status == 401 {
                cookie = try await relogin(replacing: cookie)
                answer = try await send(.GET, path, cookie: cookie)
            }
            response = answer
        }
        guard response.isSuccess else {
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
        guard let value = try? JSONValue(parsing: response.body) else {
            throw BackendError(
                .badResponse, backend: Self.backend, message: "Tickedify sent an answer that is not JSON"
            )
        }
        return value
    }

    /// A write the real server must never get without a valid session (`PUT /api/taak/:id`
    /// and the planning routes crash it, see docs/backends/tickedify.md), sent the way a
    /// `.provenFirst` read is: with a session proven within the trust window or checked just
    /// before, once (never retried), any failure ending the trust. An account without access
    /// is refused (`upstream_access_expired`) before anything is sent. Returns the answer
    /// whatever its status, so the write can tell Tickedify's refusals apart.
    public func write(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> UpstreamHTTP.Response {
        let cookie = try await withAccess(currentCookie())
        return try await proven(method, path, cookie: cookie, body: body)
    }

    /// One call that needs a valid session: checked first unless it was proven within the
    /// trust window (a check that finds the account without access refuses the call), never
    /// retried, and its failure ends the trust.
    private func proven(_ method: HTTPMethod, _ path: String, cookie: String, body: Data? = nil) async throws
        -> UpstreamHTTP.Response
    {
        var cookie = cookie
        await session.used()
        if await session.needsCheck(cookie) {
            cookie = try await verified(cookie)
            if let refused = await session.currentAccess()?.error { throw refused }
        }
        let response = try await send(
            method, path, cookie: cookie, body: body, retry: RetryPolicy.none, needsProof: true)
        await session.keepWarm { [self] cookie in await keepWarmCheck(cookie) }
        return response
    }

    /// A keep-warm check (`session_keep_warm`): `GET /api/auth/me` with `cookie`, shared with any
    /// check that runs at the same time. A 2xx proves the session again; a 401 or no answer ends
    /// the trust. It never logs in: the next call does, if it must.
    func keepWarmCheck(_ cookie: String) async {
        do {
            _ = try await session.auth.check(cookie) { [self] in
                let me = try await send(.GET, "/api/auth/me", cookie: cookie)
                return me.isSuccess
            }
        } catch {
            logger.debug("Tickedify keep-warm session check failed", metadata: ["error": "\(error)"])
        }
    }

    /// POST `path` with a session checked just before (`/api/auth/me`, logging in after its
    /// 401), whatever the trust: writes are rare. The POST itself is sent once: a write is
    /// never retried.
    public func post(_ path: String, body: Data) async throws -> JSONValue {
        let cookie = try await verified(currentCookie())
        if let refused = await session.currentAccess()?.error { throw refused }
        let response = try await send(.POST, path, cookie: cookie, body: body, needsProof: true)
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        return (try? JSONValue(parsing: response.body)) ?? .null
    }

    /// `cookie` when the account has access. While Tickedify says it has none (an ended trial
    /// or beta), the call fails with `upstream_access_expired` without a new login; after
    /// `TickedifyAccess.recheck` the session is checked again (`/api/auth/me` says whether
    /// the account has access again).
    private func withAccess(_ cookie: String) async throws -> String {
        guard let access = await session.currentAccess(), !access.hasAccess else { return cookie }
        guard access.needsRecheck(now: session.now()) else { throw access.error! }
        let checked = try await verified(cookie)
        if let refused = await session.currentAccess()?.error { throw refused }
        return checked
    }

    /// `cookie` checked with `GET /api/auth/me` just now (one check shared by the calls that
    /// ask at the same time), or a fresh one from a login when Tickedify refused it.
    private func verified(_ cookie: String) async throws -> String {
        let valid = try await session.auth.check(cookie) { [self] in
            let me = try await send(.GET, "/api/auth/me", cookie: cookie)
            if me.status == 401 { return false }
            guard me.isSuccess else { throw UpstreamHTTP.error(for: me, backend: Self.backend) }
            if let value = try? JSONValue(parsing: me.body),
                let access = TickedifyAccess.from(value, at: session.now())
            {
                try await session.record(access)
            }
            return true
        }
        return valid ? cookie : try await relogin(replacing: cookie)
    }

    /// The cookie to use: the current one, a fresh one when there is none, or — once per
    /// cookie, when it is within an hour of its expiry — a fresh one from a login ahead of
    /// time. When that early login fails or is refused, the still valid cookie is kept.
    private func currentCookie() async throws -> String {
        guard let cookie = await session.cookie() else { return try await relogin(replacing: nil) }
        guard await session.claimRenewal(of: cookie) else { return cookie }
        do {
            let fresh = try await relogin(replacing: cookie)
            logger.info("Tickedify session cookie near its expiry: logged in again ahead of time")
            return fresh
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning(
                "Tickedify session cookie near its expiry, but logging in again failed; the current one is kept",
                metadata: ["error": "\(error)"]
            )
            return cookie
        }
    }

    private func relogin(replacing stale: String?) async throws -> String {
        try await session.auth.renew(replacing: stale) { [self] in
            let sent = session.now()
            let cookie: TickedifySessionCookie
            let access: TickedifyAccess?
            do {
                (cookie, access) = try await login()
            } catch let error as BackendError {
                if let failure = Self.failure(error, needsProof: false) { await session.failed(failure) }
                throw error
            }
            try await session.loggedIn(cookie, sentAt: sent)
            // A login without `requiresUpgrade` says the account has access.
            try await session.record(access ?? TickedifyAccess(hasAccess: true, checkedAt: session.now()))
            return cookie.pair
        }
    }

    /// A new session: from the persistent login link `daygate connect tickedify` kept (no rate
    /// limit, no password), else from the configured password. A link answered without a
    /// session is never forgotten (Tickedify answers so for an unknown link and also when it
    /// cannot save a session): it is tried again after a back-off (`TickedifyLinkHealth`), the
    /// password is used meanwhile, and without one the section says `reauth_suspected` — or,
    /// after three days of failures, `reauth_required` (connect again). The account's access
    /// comes with a password login (`requiresUpgrade`); a link login does not say it.
    func login() async throws -> (TickedifySessionCookie, TickedifyAccess?) {
        let vault = session.vault
        let profile = session.profile
        if let token = await TickedifyPersistentLogin.stored(vault: vault, profile: profile, email: settings.email) {
            var health = await TickedifyPersistentLogin.health(vault: vault, profile: profile)
            let now = session.now()
            if health.nextTry(now: now) == nil {
                if let cookie = try await TickedifyPersistentLogin.login(
                    token: token, baseURL: settings.endpoint.baseURL, http: http,
                    timeout: settings.endpoint.timeout.seconds, source: source, now: now)
                {
                    if health.failures > 0 {
                        logger.info(
                            "Tickedify accepts the kept login link again", metadata: ["failures": "\(health.failures)"])
                        health.worked()
                        try await TickedifyPersistentLogin.setHealth(health, vault: vault, profile: profile)
                    }
                    return (cookie, nil)
                }
                health.failed(at: now)
                try await TickedifyPersistentLogin.setHealth(health, vault: vault, profile: profile)
                logger.warning(
                    "Tickedify answered the kept login link without a session (as it does for an unknown link, and when it cannot save a session); the link is kept and tried again later",
                    metadata: ["failures": "\(health.failures)"])
            }
            if settings.password == nil {
                throw Self.linkNotAccepted(health, now: now)
            }
        }
        guard let password = settings.password else {
            throw Self.connectAgain("there is no Tickedify login kept for \(settings.email)")
        }
        return try await passwordLogin(password)
    }

    /// Why there is no session while the kept link is failing and there is no password: it is
    /// suspected (kept, tried again at the next back-off) or, after long enough, to be replaced.
    static func linkNotAccepted(_ health: TickedifyLinkHealth, now: Date) -> BackendError {
        let since = health.firstFailure.map { LenientDate.format($0, in: .gmt) } ?? "now"
        let wait =
            health.nextTry(now: now).map { $0.timeIntervalSince(now).rounded(.up) } ?? TickedifyLinkHealth.firstBackoff
        let tries = health.failures == 1 ? "1 try" : "\(health.failures) tries"
        if health.state == .reauthRequired {
            return BackendError(
                .reauthRequired, backend: backend,
                message:
                    "Tickedify has not accepted the kept login link since \(since) (\(tries)); run `daygate connect tickedify` to log in again (the link is kept and still tried until then)",
                retryAfter: wait)
        }
        return BackendError(
            .reauthSuspected, backend: backend,
            message:
                "Tickedify did not accept the kept login link since \(since) (\(tries)), as it answers for an unknown link and also when it cannot save a session; the link is kept and tried again in \(Int(wait)) s",
            retryAfter: wait)
    }

    /// The refusal that asks the person to run `daygate connect tickedify`.
    static func connectAgain(_ reason: String) -> BackendError {
        BackendError(
            .reauthRequired, backend: backend,
            message: "\(reason); run `daygate connect tickedify` to log in again", retryAfter: 900)
    }

    /// `POST /api/auth/login`; returns the `tickedify.sid=…` cookie with its lifetime, and the
    /// account's access when the answer says (`requiresUpgrade`: a session is made all the same).
    func passwordLogin(_ password: Secret) async throws -> (TickedifySessionCookie, TickedifyAccess?) {
        try await Self.passwordLogin(
            email: settings.email, password: password, endpoint: settings.endpoint, http: http, source: source,
            now: session.now())
    }

    /// `POST /api/auth/login` for `email`; the cookie and the account's access, or the refusal
    /// as a `BackendError`.
    public static func passwordLogin(
        email: String, password: Secret, endpoint: BackendEndpoint, http: UpstreamHTTP, source: UpstreamSource,
        now: Date
    ) async throws -> (TickedifySessionCookie, TickedifyAccess?) {
        let body = try JSONCoding.encode(["email": email, "wachtwoord": password.reveal()])
        let response = try await http.send(
            .POST, url: endpoint.baseURL + "/api/auth/login", body: body,
            timeout: endpoint.timeout.seconds, source: source, gate: false
        )
        switch response.status {
        case 200..<300:
            let cookie = TickedifySessionCookie.parse(
                response.headers[canonicalForm: "Set-Cookie"].map(String.init), name: Self.cookieName,
                serverDate: response.headers.first(name: "Date"), now: now
            )
            guard let cookie else {
                throw BackendError(
                    .badResponse, backend: Self.backend,
                    message: "Tickedify accepted the login but set no session cookie"
                )
            }
            let answer = try? JSONValue(parsing: response.body)
            return (cookie, answer.flatMap { TickedifyAccess.from($0, at: now) })
        case 429:
            let wait = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds(from: $0) } ?? 900
            throw BackendError(
                .reauthBlocked, backend: Self.backend,
                message: "Tickedify allows 5 logins per 15 minutes; "
                    + "the gateway waits \(Int(wait)) s before logging in again",
                status: 429, retryAfter: wait
            )
        case 400, 401, 403:
            let reason = UpstreamErrorMessage.extract(from: response.body).map { " (\($0))" } ?? ""
            throw BackendError(
                .reauthRequired, backend: Self.backend,
                message: "Tickedify refused the email and password\(reason)",
                status: response.status, retryAfter: 900
            )
        default:
            throw UpstreamHTTP.error(for: response, backend: Self.backend)
        }
    }

    /// One call with `cookie`, its outcome told to the session: a 2xx proves the session; a 401,
    /// a dropped connection or a timeout ends the trust, and so does any failure of a call that
    /// `needsProof`. `retry` nil: the client's own policy.
    private func send(
        _ method: HTTPMethod, _ path: String, cookie: String, body: Data? = nil, retry: RetryPolicy? = nil,
        needsProof: Bool = false
    ) async throws -> UpstreamHTTP.Response {
        let sent = session.now()
        let url = settings.endpoint.baseURL + path
        let headers = [("Cookie", cookie)]
        let timeout = settings.endpoint.timeout.seconds
        do {
            let response =
                if let retry {
                    try await http.send(
                        method, url: url, headers: headers, body: body, timeout: timeout, source: source, retry: retry
                    )
                } else {
                    try await http.send(
                        method, url: url, headers: headers, body: body, timeout: timeout, source: source)
                }
            if response.isSuccess {
                await session.proven(cookie, sentAt: sent)
            } else if response.status == 401 {
                await session.failed(.unauthorized)
            } else if needsProof {
                await session.failed(.provenCallFailed)
            }
            return response
        } catch let error as BackendError {
            if let failure = Self.failure(error, needsProof: needsProof) { await session.failed(failure) }
            throw error
        } catch {
            // Cancelled: nobody knows what the server made of it.
            if needsProof { await session.failed(.provenCallFailed) }
            throw error
        }
    }

    /// What a failed call says about the trust: nothing, unless the server may be gone (no
    /// answer) or the call needed a proven session.
    static func failure(_ error: BackendError, needsProof: Bool) -> TickedifySessionTrust.Failure? {
        switch error.kind {
        case .unreachable: .unreachable
        case .timeout: .timeout
        default: needsProof ? .provenCallFailed : nil
        }
    }
}
