import Aggregation
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// Who may ask what, and as which profile.
///
/// - With client keys configured, `/v1/*` and `/metrics` need `Authorization: Bearer <key>`;
///   the key picks the profile. A missing or unknown key is a 401 (the same answer for both).
/// - Without keys (loopback mode) every request is served the default profile, and the `Host`
///   header must name this machine (localhost, a loopback address, or `allowed_hosts`): a
///   page on another site that rebinds its DNS name to 127.0.0.1 gets a 403, not the
///   household's data.
/// - Health checks, `/openapi.json` and the dashboard's files need no key (the page asks for
///   one when the API answers 401).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let keys: ClientKeys
    let defaultProfile: String
    let allowedHosts: Set<String>

    init(config: DaygateConfig) {
        keys = ClientKeys(config.clients)
        defaultProfile = config.defaultProfileName
        allowedHosts = Set((config.allowedHosts + [config.listen.host]).map { $0.lowercased() })
    }

    /// Who is asking: the profile to serve (and the client's name when a key picked it), or
    /// the error to answer with. Shared by the middleware and `HotAnswerHandler`.
    enum Decision {
        case serve(profile: String, client: String?)
        case refuse(GatewayError)
    }

    func decide(path: String, authority: String?, authorization: String?) -> Decision {
        if keys.isEmpty {
            if let host = authority, !isLocal(host) {
                return .refuse(
                    GatewayError(
                        .forbidden, code: "host_not_allowed",
                        message:
                            "Host \"\(RouteParameter.shown(host, limit: 80))\" is not this machine; add it to allowed_hosts in the config if it is"
                    ))
            }
            return .serve(profile: defaultProfile, client: nil)
        }
        guard Self.needsKey(path) else { return .serve(profile: defaultProfile, client: nil) }
        guard let key = ClientKeys.bearerKey(authorization), let client = keys.client(presenting: key) else {
            return .refuse(
                GatewayError(
                    .unauthorized, code: "unauthorized", message: "send a client key as Authorization: Bearer <key>",
                    headers: [.wwwAuthenticate: #"Bearer realm="daygate""#]
                ))
        }
        return .serve(profile: client.profile, client: client.name)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        switch decide(
            path: request.uri.path, authority: request.head.authority, authorization: request.headers[.authorization])
        {
        case .serve(let profile, let client):
            context.profile = profile
            context.client = client
            if let client { context.logger[metadataKey: "client"] = .string(client) }
            return try await next(request, context)
        case .refuse(let error):
            if error.status == .unauthorized {
                context.logger.notice(
                    "request without a valid client key",
                    metadata: ["path": "\(RouteParameter.shown(request.uri.path, limit: 80))"])
            }
            throw error
        }
    }

    static func needsKey(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path == "/v1" || path == "/metrics"
    }

    /// `Host` names this machine: localhost (and `*.localhost`), a loopback address, or one
    /// of `allowed_hosts`; the port does not matter.
    func isLocal(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") {
            name = String(name.dropFirst().prefix { $0 != "]" })
        } else if let colon = name.lastIndex(of: ":"), name.firstIndex(of: ":") == colon {
            name = String(name[..<colon])
        }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || allowedHosts.contains(name) {
            return true
        }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
