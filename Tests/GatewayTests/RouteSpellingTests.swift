import Foundation
import Gateway
import Hummingbird
import HummingbirdTesting
import Testing

/// Every route the router has — enumerated from the router itself, so a route added later is
/// covered without editing this file — asked without a key, in every spelling an attacker
/// tries (`//`, a trailing `/`, `/./`, `..`, `%2F`, another case, a doubled prefix): none is
/// answered with data. The canonical spelling of a route that is not public is a 401; every
/// other spelling is refused before routing (`bad_path`) or is not a route at all (404).
/// Over a real socket, so the path reaches the server byte for byte as sent.
@Suite("Every route, every spelling")
struct RouteSpellingTests {
    /// The spellings of `path` (a concrete path, parameters filled in) to try.
    static func spellings(of path: String) -> [String] {
        let inner = path.dropFirst()
        var variants = [
            "/" + path, path + "/", "/" + path + "/", "/." + path, path + "/.", "/x/.." + path, "/%2e" + path,
            "/%2F" + inner, path + "//", path.uppercased(),
        ]
        if let slash = inner.firstIndex(of: "/") {
            variants.append("/" + inner[..<slash] + "//" + inner[inner.index(after: slash)...])
            variants.append("/" + inner[..<slash] + "%2F" + inner[inner.index(after: slash)...])
            variants.append("/" + inner[..<slash] + "%2f" + inner[inner.index(after: slash)...])
            variants.append("/" + inner[..<slash] + "/./" + inner[inner.index(after: slash)...])
        }
        return variants
    }

    /// `/v1/tasks/{id}/complete` → `/v1/tasks/t1/complete`.
    static func concrete(_ route: RouterPath) -> String {
        "/"
            + route.components.map { element -> String in
                let text = element.description
                return text.hasPrefix(":") || text.hasPrefix("{") ? "t1" : text
            }.joined(separator: "/")
    }

    static func ask(port: Int, method: HTTPRequest.Method, path: String) async throws -> (status: Int?, text: String) {
        let client = try RawClient(port: port)
        defer { client.close() }
        let body = [.post, .put, .patch].contains(method) ? "{}" : ""
        client.send(
            "\(method.rawValue) \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        await client.wait(timeout: .seconds(10)) { $0.text.contains("\r\n\r\n") }
        return (client.status, client.text)
    }

    @Test func noRouteAnswersAnySpellingWithoutAKey() async throws {
        try await SecurityTests.with(clients: true) { setup in
            let routes = GatewayApplication.router(runtime: setup.runtime).routes.map {
                (path: Self.concrete($0.path), method: $0.method)
            }
            #expect(routes.count > 30, "the router's table, not a list of our own")
            try await setup.test(.live) { client in
                let port = try #require(client.port)
                var asked = 0
                for route in routes {
                    let path = route.path
                    let open = ["/healthz", "/readyz", "/openapi.json"].contains(path)
                    let canonical = try await Self.ask(port: port, method: route.method, path: path)
                    if !open {
                        #expect(canonical.status == 401, "\(route.method) \(path): \(canonical.text.prefix(200))")
                    }
                    for spelling in Self.spellings(of: path) {
                        let answer = try await Self.ask(port: port, method: route.method, path: spelling)
                        asked += 1
                        let status = try #require(answer.status, "\(route.method) \(spelling): no answer")
                        #expect(
                            [400, 401, 404, 405].contains(status),
                            "\(route.method) \(spelling) answered \(status) without a key: \(answer.text.prefix(300))")
                    }
                }
                #expect(asked > 300)
            }
        }
    }
}
