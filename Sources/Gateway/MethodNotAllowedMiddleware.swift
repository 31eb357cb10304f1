import Aggregation
import Hummingbird
import Synchronization

/// A known path asked with a method it does not answer gets `405 method_not_allowed` with an
/// `Allow` header, not the router's `404`: `POST /v1/today` is a wrong method, not a missing
/// page. The methods come from the router's own table (`AllowedMethods.load`), so they cannot
/// drift from what is registered.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let allowed: AllowedMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            guard let methods = allowed.methods(for: path), !methods.contains(request.method) else { throw error }
            let list = methods.map(\.rawValue).sorted().joined(separator: ", ")
            throw GatewayError(
                .methodNotAllowed, code: "method_not_allowed",
                message:
                    "\(request.method) is not allowed on \(RouteParameter.shown(path, limit: 80)); allowed: \(list)",
                headers: [.allow: list]
            )
        }
    }
}

/// Which methods each registered path answers (`GET` implies `HEAD`).
final class AllowedMethods: Sendable {
    private struct Entry {
        var components: [RouterPath.Element]
        var methods: Set<HTTPRequest.Method>
    }

    private let entries = Mutex<[Entry]>([])

    /// Takes the router's table once every route is registered.
    func load(_ routes: [(path: RouterPath, method: HTTPRequest.Method)]) {
        var byPath: [String: Entry] = [:]
        for route in routes {
            var entry = byPath[route.path.description] ?? Entry(components: route.path.components, methods: [])
            entry.methods.insert(route.method)
            if route.method == .get { entry.methods.insert(.head) }
            byPath[route.path.description] = entry
        }
        entries.withLock { $0 = Array(byPath.values) }
    }

    /// The methods of the registered path that `path` matches, or nil when none does.
    func methods(for path: String) -> Set<HTTPRequest.Method>? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = entries.withLock { entries in
            entries.filter { entry in
                entry.components.count == segments.count && zip(entry.components, segments).allSatisfy { $0 ~= $1 }
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.reduce(into: Set<HTTPRequest.Method>()) { $0.formUnion($1.methods) }
    }
}
