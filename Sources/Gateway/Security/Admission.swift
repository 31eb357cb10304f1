import Aggregation
import Foundation
import HTTPTypes
import Model

/// Whether a request may be answered, and as which profile: one decision for the router
/// (`AdmissionMiddleware`) and the hot path (`HotAnswers`), so the two cannot drift apart.
///
/// - **Bounds**: at most `maximumHeaderCount` headers and `maximumHeaderBytes` of them (431), a
///   declared body of at most `maximumBodyBytes` (413), writes only as `application/json` (415:
///   a page on another site cannot send that without a CORS preflight).
/// - **CORS**: preflights are answered for the origins in `cors.origins` only (others: 403);
///   answers to those origins carry the CORS headers, answers to others none.
/// - **Where**: the path must be canonical (`RequestPath`: no `//`, trailing `/`, `.`/`..`
///   segment or encoded slash — 400 `bad_path`), because the router skips empty segments and
///   would otherwise answer a spelling this decision never judged. Every request names a
///   well-formed `Host` (`HostHeader`; else 400 `bad_host`).
/// - **Who**: with client keys, every route needs `Authorization: Bearer <key>` and the key picks
///   the profile (a missing or unknown key: 401, the same answer for both) — deny by default:
///   only `publicPaths` and the dashboard's files (paths no route answers) are open. `Host` must
///   be a loopback name or address, any IP address, this machine's own name (`<hostname>`,
///   `<hostname>.local`) or one of `allowed_hosts`: a DNS name an attacker rebinds to the
///   gateway is refused (403) even where only a key would be needed.
///   Without keys (loopback mode) every request is served the default profile, and the `Host`
///   header must name this machine (localhost, a loopback address, or `allowed_hosts`): a page
///   whose DNS name an attacker rebinds to 127.0.0.1 gets a 403, not the household's data.
///   `/v1/calendar.ics` also takes a client's `feed_key` as `?key=` (calendar apps cannot send
///   headers); a feed key opens nothing else.
struct Admission: Sendable {
    static let maximumBodyBytes = 64 * 1024
    static let maximumHeaderBytes = 32 * 1024
    static let maximumHeaderCount = 100

    static let allowedMethods = "GET, HEAD, POST, PUT, DELETE"
    static let allowedHeaders =
        "Authorization, Content-Type, Cache-Control, If-None-Match, Idempotency-Key, X-Request-Id"
    static let exposedHeaders = "ETag, Age, Cache-Status, Server-Timing, Retry-After, X-Request-Id"

    /// What the decision looks at.
    struct Asked {
        var method: HTTPRequest.Method
        var path: String
        var host: String?
        var authorization: String?
        /// The `key` query parameter of a `/v1/calendar.ics` request (a feed key).
        var feedKey: String? = nil
        var origin: String?
        /// An `OPTIONS` with `Access-Control-Request-Method`.
        var isPreflight = false
        var headerCount = 0
        var headerBytes = 0
        var contentLength: String?
        var contentType: String?
    }

    enum Decision: Equatable {
        /// Serve `profile` (and name `client` in the log); `corsOrigin` is echoed in the CORS
        /// headers of the answer.
        case serve(profile: String, client: String?, corsOrigin: String?)
        /// Answer the CORS preflight of `origin` (204).
        case preflight(origin: String)
        /// Refuse with this error (`corsOrigin`: a listed origin still gets CORS headers on it).
        case refuse(GatewayError, corsOrigin: String?)

        static func == (lhs: Decision, rhs: Decision) -> Bool {
            switch (lhs, rhs) {
            case (.serve(let a, let b, let c), .serve(let x, let y, let z)): a == x && b == y && c == z
            case (.preflight(let a), .preflight(let x)): a == x
            case (.refuse(let a, let b), .refuse(let x, let y)): a.status == x.status && a.detail == x.detail && b == y
            default: false
            }
        }
    }

    /// Paths that never need a key: health checks and the API's description.
    static let publicPaths: Set<String> = ["/healthz", "/readyz", "/openapi.json"]

    let keys: ClientKeys
    let defaultProfile: String
    let allowedHosts: Set<String>
    /// This machine's own names, accepted as `Host` when keys are configured.
    let machineNames: Set<String>
    let corsOrigins: Set<String>
    /// The router's table: a path any route answers needs a key (nil: every path asked does,
    /// as on the hot path, which serves routes only).
    let routes: AllowedMethods?

    init(config: DaygateConfig, routes: AllowedMethods? = nil, machineNames: Set<String> = Admission.machineNames()) {
        keys = ClientKeys(config.clients)
        defaultProfile = config.defaultProfileName
        allowedHosts = Set(
            (config.allowedHosts + [config.listen.host]).map { HostHeader($0)?.name ?? $0.lowercased() })
        self.machineNames = machineNames
        corsOrigins = Set(config.cors.origins)
        self.routes = routes
    }

    /// `gethostname()` and its mDNS name `<hostname>.local`, lowercased.
    static func machineNames() -> Set<String> {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .lowercased()
        guard let host = HostHeader(name), host.kind == .name else { return [] }
        return [host.name, host.name + ".local"]
    }

    func decide(_ asked: Asked) -> Decision {
        let cors = asked.origin.flatMap { corsOrigins.contains($0) ? $0 : nil }
        if let problem = RequestPath.problem(asked.path) {
            return .refuse(GatewayError(.badRequest, code: "bad_path", message: problem), corsOrigin: cors)
        }
        if asked.isPreflight {
            guard let cors else {
                return .refuse(
                    GatewayError(
                        .forbidden, code: "cors_origin_not_allowed", message: "this origin is not in cors.origins"),
                    corsOrigin: nil)
            }
            return .preflight(origin: cors)
        }
        if let refusal = boundsRefusal(asked) { return .refuse(refusal, corsOrigin: cors) }
        switch who(path: asked.path, host: asked.host, authorization: asked.authorization, feedKey: asked.feedKey) {
        case .success(let served):
            if let refusal = Self.scopeRefusal(method: asked.method, path: asked.path, served: served) {
                return .refuse(refusal, corsOrigin: cors)
            }
            return .serve(profile: served.profile, client: served.client, corsOrigin: cors)
        case .failure(let refusal): return .refuse(refusal, corsOrigin: cors)
        }
    }

    private func boundsRefusal(_ asked: Asked) -> GatewayError? {
        guard Self.withinLimits(count: asked.headerCount, bytes: asked.headerBytes) else {
            return GatewayError(
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"), code: "headers_too_large",
                message: "at most \(Self.maximumHeaderCount) headers and \(Self.maximumHeaderBytes / 1024) KB of them"
            )
        }
        if let length = asked.contentLength {
            guard let value = Int(length), value >= 0 else {
                return GatewayError(.badRequest, code: "bad_request", message: "Content-Length is not a number")
            }
            guard value <= Self.maximumBodyBytes else {
                return GatewayError(
                    .contentTooLarge, code: "body_too_large",
                    message: "a request body is at most \(Self.maximumBodyBytes / 1024) KB")
            }
        }
        // A method the path does not answer is the router's 405, whatever its Content-Type.
        if Self.isWrite(asked.method), routes?.methods(for: asked.path).map({ $0.contains(asked.method) }) ?? true {
            let type = asked.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard type == "application/json" else {
                return GatewayError(
                    .unsupportedMediaType, code: "unsupported_media_type",
                    message: "writes take Content-Type: application/json")
            }
        }
        return nil
    }

    private struct Served {
        var profile: String
        var client: String?
        /// What the request may do: everything in loopback mode and on a path no route answers
        /// (a public one, a dashboard file); a key's `scopes`; a feed key: reading.
        var scopes: Set<ClientScope>
    }

    /// `GET /v1/me`: who the key is (`ClientIdentityReport`), open to every valid key.
    static let identityPath = "/v1/me"

    /// The paths of the household routes, which read every member's day.
    static func isHousehold(_ path: String) -> Bool {
        path.hasPrefix(Route.householdPrefix) || path + "/" == Route.householdPrefix
    }

    /// A method that only reads: anything else is a write and needs the `write` scope.
    static func onlyReads(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// The scopes of the client named `client` (what a request it made may do): its configured
    /// ones; all in loopback mode and without a client (a path no route answers).
    func scopes(ofClient client: String?) -> Set<ClientScope> {
        guard !keys.isEmpty, let client else { return ClientScope.all }
        return keys.entries.first { $0.client.name == client }?.client.scopes ?? []
    }

    /// 403 `insufficient_scope` when the key's scopes do not cover the request: a write
    /// (any method but GET, HEAD, OPTIONS) needs `write`, a household route `household`,
    /// `/v1/me` nothing, any other route `read` (or `write`).
    private static func scopeRefusal(method: HTTPRequest.Method, path: String, served: Served) -> GatewayError? {
        let needed: ClientScope
        if path == identityPath, onlyReads(method) {
            // Any valid key may ask who it is (and learns only what its scopes let it read).
            return nil
        } else if !onlyReads(method) {
            needed = .write
        } else if isHousehold(path) {
            needed = .household
        } else {
            guard !ClientScope.canRead(served.scopes) else { return nil }
            needed = .read
        }
        guard !served.scopes.contains(needed) else { return nil }
        let what =
            switch needed {
            case .write: "this key may not write"
            case .household: "this key may not read the household"
            case .read: "this key may not read its profile's routes"
            }
        return GatewayError(
            .forbidden, code: "insufficient_scope",
            message: "\(what) (its scopes: \(ClientScope.describe(served.scopes)); needed: \(needed.rawValue))")
    }

    private func who(path: String, host: String?, authorization: String?, feedKey: String?) -> Result<
        Served, GatewayError
    > {
        guard let host else {
            return .failure(GatewayError(.badRequest, code: "bad_host", message: "a request names its Host"))
        }
        guard let parsed = HostHeader(host) else {
            return .failure(
                GatewayError(
                    .badRequest, code: "bad_host",
                    message: "Host \"\(RouteParameter.shown(host, limit: 80))\" is not a host name or address"))
        }
        guard keys.isEmpty ? isLocal(parsed) : isReachable(parsed) else {
            return .failure(
                GatewayError(
                    .forbidden, code: "host_not_allowed",
                    message:
                        "Host \"\(RouteParameter.shown(host, limit: 80))\" is not this machine; add it to allowed_hosts in the config if it is"
                ))
        }
        if keys.isEmpty { return .success(Served(profile: defaultProfile, scopes: ClientScope.all)) }
        // A public path or a dashboard file: no route writes there, so no scope decides it (a
        // write is the router's 405).
        guard needsKey(path) else { return .success(Served(profile: defaultProfile, scopes: ClientScope.all)) }
        if path == CalendarFeedService.path, authorization == nil, let feedKey {
            guard let client = keys.client(presentingFeedKey: feedKey) else {
                return .failure(
                    GatewayError(
                        .unauthorized, code: "unauthorized",
                        message: "this feed key is not known; see the client's feed_key in the config"))
            }
            // A feed key opens the feed only: it reads.
            return .success(Served(profile: client.profile, client: client.name, scopes: [.read]))
        }
        guard let key = ClientKeys.bearerKey(authorization), let client = keys.client(presenting: key) else {
            return .failure(
                GatewayError(
                    .unauthorized, code: "unauthorized", message: "send a client key as Authorization: Bearer <key>",
                    headers: [.wwwAuthenticate: #"Bearer realm="daygate""#]
                ))
        }
        return .success(Served(profile: client.profile, client: client.name, scopes: client.scopes))
    }

    /// Whether a (canonical) request path needs a key when keys are configured: every path
    /// but the public ones that a route answers, and anything under `/v1` (an unknown one is a
    /// 401, not a 404 that tells what exists). Paths no route answers are the dashboard's files.
    func needsKey(_ path: String) -> Bool {
        if Self.publicPaths.contains(path) { return false }
        if path.hasPrefix("/v1/") || path == "/v1" { return true }
        return routes.map { $0.methods(for: path) != nil } ?? true
    }

    /// Whether a documented route (its template) needs a key: all but the public ones.
    static func needsKey(route path: String) -> Bool {
        !publicPaths.contains(path)
    }

    /// Loopback mode: `Host` names this machine — localhost (and `*.localhost`), a loopback
    /// address, or one of `allowed_hosts`; the port does not matter.
    func isLocal(_ host: HostHeader) -> Bool {
        host.isLoopback || allowedHosts.contains(host.name)
    }

    /// Keyed mode (listening beyond loopback): also any IP address (a rebinding page has a DNS
    /// name, never an address) and this machine's own names.
    func isReachable(_ host: HostHeader) -> Bool {
        isLocal(host) || host.kind != .name || machineNames.contains(host.name)
    }

    /// What one header counts against `maximumHeaderBytes` (as on the wire: `name: value\r\n`).
    static func size(name: String, value: String) -> Int {
        name.utf8.count + value.utf8.count + 4
    }

    static func withinLimits(count: Int, bytes: Int) -> Bool {
        count <= maximumHeaderCount && bytes <= maximumHeaderBytes
    }

    static func isWrite(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch
    }

    /// The CORS headers of an answer to a listed origin.
    static func addCORSHeaders(to headers: inout HTTPFields, origin: String) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = exposedHeaders
        headers[.vary] = "Origin"
    }
}
