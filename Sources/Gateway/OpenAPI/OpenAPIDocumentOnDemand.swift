import Aggregation
import Foundation
import Synchronization

/// `/openapi.json`'s bytes, built by the first request that asks and kept from then on: a
/// gateway nobody asks for its document never builds it (nor touches OpenAPIKit's code), which
/// keeps its resident memory down on a small home server.
final class OpenAPIDocumentOnDemand: Sendable {
    private let routes: [Route]
    private let built = Mutex<Data?>(nil)

    init(routes: [Route]) {
        self.routes = routes
    }

    /// Whether a request has asked for it yet.
    var isBuilt: Bool { built.withLock { $0 != nil } }

    var json: Data {
        built.withLock { built in
            if let built { return built }
            let json = OpenAPIDocument.make(routes: routes)
            built = json
            return json
        }
    }
}
