import Hummingbird
import Logging
import Model
import NIOCore

/// Per-request state: the request id (also on every log line), the profile served, and who is
/// asking (the client key's name, or the peer's address without keys).
public struct GatewayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestID = ""
    public var profile = ""
    /// The name of the client key that picked the profile; nil without keys.
    public var client: String?
    /// What the request may do (`ClientScope`), set by admission; nothing until then, so a
    /// handler reached without admission writes nothing.
    public var scopes: Set<ClientScope> = []
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// One client for per-client limits: its key, or its IP address when there are no keys.
    var clientIdentity: String {
        if let client { return "key:" + client }
        return "address:" + (remoteAddress?.ipAddress ?? "unknown")
    }
}
