import Hummingbird
import Logging

/// Per-request state: the request id (also on every log line) and the profile served.
public struct GatewayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestID = ""
    public var profile = ""

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}
