import Foundation
import Model

/// `daygate connect tickedify`: the password once (one of Tickedify's 5 logins per 15 minutes)
/// or a persistent login link the person already has; what is kept is the persistent login
/// link's token (`TickedifyPersistentLogin`), never the password. The gateway renews its
/// 24-hour cookie through `/al/<token>`, which has no rate limit.
public struct TickedifyConnect: BackendConnector {
    public init() {}

    public var backend: String { TickedifySettings.backend }

    public var summary: String {
        "the password once, or a persistent login link; keeps the link's token, not the password"
    }

    public func connect(_ context: ConnectContext) async throws -> String {
        let settings = try context.settings(TickedifySettings.self)
        let prompt = context.prompt
        let endpoint = settings.endpoint
        let source = context.source(backend)
        let cookie: TickedifySessionCookie
        var token: String?
        if prompt.hasAnswer("link") {
            let link = try prompt.askSecret("link", "Tickedify persistent login link")
            let result = try await loginWithLink(link, endpoint: endpoint, context: context)
            token = result.0
            cookie = result.1
        } else {
            prompt.say(Self.replacesTheLink)
            let answer = try prompt.askSecret(
                "password", "Tickedify password for \(settings.email) (or paste a persistent login link)")
            if TickedifyPersistentLogin.token(in: answer) != nil, answer.contains("/al/") {
                let result = try await loginWithLink(answer, endpoint: endpoint, context: context)
                token = result.0
                cookie = result.1
            } else {
                do {
                    cookie = try await TickedifyClient.passwordLogin(
                        email: settings.email, password: Secret(answer), endpoint: endpoint, http: context.http,
                        source: source, now: context.now()
                    ).0
                } catch let error as BackendError {
                    throw ConnectError(Self.sentence(for: error, email: settings.email))
                }
            }
        }
        let madeALink = token == nil
        if token == nil {
            token = try await TickedifyPersistentLogin.generate(
                cookie: cookie.pair, baseURL: endpoint.baseURL, http: context.http,
                timeout: endpoint.timeout.seconds, source: source)
        }
        guard let token else { throw ConnectError("Tickedify gave no persistent login link") }
        let scope = TickedifyClient.scope(settings).description
        try await TickedifyPersistentLogin.store(token, email: settings.email, vault: context.vault, profile: scope)
        try await keep(cookie, scope: scope, context: context)
        let replaced =
            madeALink
            ? "\nTickedify made a new login link for this account: a link made before (in a browser, on another device or by another daygate) no longer works."
            : ""
        return """
            Connected Tickedify as \(settings.email) for profile \(context.profileName).
            Kept in the vault: a persistent login link (the gateway renews its 24-hour session through it, \
            without the password and without Tickedify's login limit); the password was not kept.
            """ + replaced
    }

    /// Said before the password is asked: Tickedify keeps one login link per account, and a
    /// new one (what daygate asks for after a password login) replaces it (recorded on the real
    /// server: `Tests/Fixtures/recordings/tickedify`, 094-095).
    static let replacesTheLink =
        "Tickedify keeps one login link per account. With the password, daygate asks Tickedify for a new one, "
        + "and the link the account has now (used by a browser, another device or another daygate) stops working. "
        + "To keep it, paste that link (https://…/al/<60 hex digits>) instead of the password."

    /// Logs in with the token in `link`: the token and the session it gave.
    private func loginWithLink(_ link: String, endpoint: BackendEndpoint, context: ConnectContext) async throws
        -> (String, TickedifySessionCookie)
    {
        guard let token = TickedifyPersistentLogin.token(in: link) else {
            throw ConnectError(
                "that is not a Tickedify persistent login link (it looks like https://tickedify.com/al/<60 hex digits>)"
            )
        }
        guard
            let cookie = try await TickedifyPersistentLogin.login(
                token: token, baseURL: endpoint.baseURL, http: context.http, timeout: endpoint.timeout.seconds,
                source: context.source(backend), now: context.now())
        else {
            throw ConnectError(
                "Tickedify does not accept that login link (it was replaced or withdrawn); make a new one, or log in with the password"
            )
        }
        return (token, cookie)
    }

    /// The session the connect made, kept so the gateway's first call needs no login.
    /// Kept under the account's scope, where the gateway's session looks.
    private func keep(_ cookie: TickedifySessionCookie, scope: String, context: ConnectContext) async throws {
        let record = TickedifySession.expiry(of: cookie, at: context.now()).record
        try await context.vault.setValue(
            cookie.pair, profile: scope, backend: backend, name: TickedifySession.vaultName)
        try await context.vault.setValue(record, profile: scope, backend: backend, name: TickedifySession.expiresName)
    }

    static func sentence(for error: BackendError, email: String) -> String {
        switch error.kind {
        case .reauthBlocked:
            "Tickedify refuses logins from this address for 15 minutes (5 attempts per 15 minutes); try again later"
        case .reauthRequired:
            "Tickedify did not accept the password for \(email) (the e-mail address must match exactly, capitals included); nothing was kept"
        default:
            "Tickedify could not be asked: \(error.message); nothing was kept"
        }
    }

    public func list(_ context: ConnectContext) async throws -> [String] {
        let settings = try context.settings(TickedifySettings.self)
        guard
            await TickedifyPersistentLogin.stored(
                vault: context.vault, profile: TickedifyClient.scope(settings).description, email: settings.email)
                != nil
        else { return [] }
        return ["Tickedify: a persistent login link for \(settings.email)"]
    }

    public func remove(_ id: String, context: ConnectContext) async throws -> String {
        let settings = try context.settings(TickedifySettings.self)
        try await TickedifyPersistentLogin.store(
            nil, email: settings.email, vault: context.vault, profile: TickedifyClient.scope(settings).description)
        for name in [TickedifySession.vaultName, TickedifySession.expiresName] {
            try await context.vault.setValue(
                nil, profile: TickedifyClient.scope(settings).description, backend: backend, name: name)
        }
        return "Forgot the Tickedify login of profile \(context.profileName)."
    }

    /// `GET /api/counts/sidebar`: answers 401 without a session (so a dead session leads to one
    /// renewal), changes nothing and never crashes the server.
    public func check(_ context: OperationContext) async -> [CredentialCheck] {
        guard let settings = context.profile.tickedify else { return [] }
        do {
            _ = try await TickedifyClient(settings: settings, context: context).get(
                "/api/counts/sidebar", session: .loginOn401)
            return [CredentialCheck(ok: true, message: "logged in as \(settings.email)")]
        } catch {
            return [CredentialCheck.failure(error, backend: backend)]
        }
    }

    public func starterSection(email: String) -> [String] {
        [
            "tickedify:                   # then: daygate connect tickedify (keeps a login link, not the password)",
            "  base_url: https://tickedify.com",
            "  email: \(email)            # exactly as Tickedify has it (capitals count)",
        ]
    }
}
