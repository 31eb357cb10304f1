import Aggregation
import Backends
import Foundation
import FuzzSupport
import HTTPTypes
import Hummingbird
import Model

@testable import Gateway

/// A request head as a client on the network sends it: the request line and the headers, read
/// the way the hot path and the router read them (path and query split, `Host`, the key), then
/// judged by `Admission` for a gateway with client keys whose routes are the real route files
/// and writes. Invariants: a canonical path is the one spelling the router reads (its segments
/// rejoined give it back, none is `.` or `..`, no encoded slash); nothing without a key is
/// served a route; a `Host` that parses names a host and nothing more.
enum RequestHeadFuzzTarget {
    static let key = "fuzz-client-key-0123456789"

    static let routes: AllowedMethods = {
        let table = AllowedMethods()
        var entries: [(path: RouterPath, method: HTTPRequest.Method)] = []
        let directory = ProcessInfo.processInfo.environment["DAYGATE_ROUTES"] ?? "routes"
        for route in (try? RouteLoader().load(directory: directory)) ?? [] {
            entries.append((RouterPath(route.path), .get))
        }
        for write in BackendCatalog.writes {
            entries.append((RouterPath(write.path), HTTPRequest.Method(rawValue: write.method.rawValue) ?? .post))
        }
        for path in ["/healthz", "/readyz", "/openapi.json", "/metrics", "/v1/sources", "/v1/stream", "/v1/summary"] {
            entries.append((RouterPath(path), .get))
        }
        table.load(entries)
        return table
    }()

    static let admission = Admission(
        config: DaygateConfig(
            profiles: ["default": ProfileConfig(), "ben": ProfileConfig()],
            clients: [ClientConfig(name: "ben-phone", key: key, profile: "ben")]),
        routes: routes, machineNames: ["homeserver", "homeserver.local"])

    static let target = FuzzTarget(name: "request-head") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
        guard let requestLine = lines.next() else { return }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, let method = HTTPRequest.Method(String(parts[0])) else { return }
        let target = String(parts[1])
        var host: String?
        var authorization: String?
        var count = 0
        var size = 0
        while let line = lines.next(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            count += 1
            size += Admission.size(name: name, value: value)
            if name == "host" { host = value }
            if name == "authorization" { authorization = value }
        }
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
        _ = try? QueryItems.parse(query)

        if RequestPath.problem(path) == nil {
            let segments = path.split(separator: "/", omittingEmptySubsequences: true)
            invariant(
                path == "/" || "/" + segments.joined(separator: "/") == path,
                "canonical \(path) is not what the router reads", target: "request-head")
            for segment in segments {
                let decoded = String(segment).removingPercentEncoding ?? String(segment)
                invariant(
                    decoded != "." && decoded != "..", "canonical \(path) has a dot segment", target: "request-head")
                invariant(
                    !segment.lowercased().contains("%2f"), "canonical \(path) hides a slash", target: "request-head")
            }
        }
        if let host, let parsed = HostHeader(host) {
            invariant(
                !parsed.name.isEmpty && !parsed.name.contains(where: { "@/?#\\ \t".contains($0) }),
                "Host \(host) read as \(parsed.name)", target: "request-head")
        }
        let asked = Admission.Asked(
            method: method, path: path, host: host, authorization: authorization, headerCount: count, headerBytes: size,
            contentType: "application/json")
        if case .serve(_, let client, _) = admission.decide(asked), client == nil {
            invariant(
                Admission.publicPaths.contains(path)
                    || (!(path == "/v1" || path.hasPrefix("/v1/")) && routes.methods(for: path) == nil),
                "\(method) \(path) served without a key", target: "request-head")
        }
    }
}
