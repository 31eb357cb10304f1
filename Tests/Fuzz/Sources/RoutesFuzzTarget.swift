import Backends
import Foundation
import FuzzSupport
import Gateway
import Model

@testable import Aggregation

/// A route file of routes/, as the gateway loads it at start and on SIGHUP.
enum RoutesFuzzTarget {
    static let loader = RouteLoader()

    static let target = FuzzTarget(name: "routes") { bytes in
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        guard let route = try? loader.parse(text, file: "/fuzz/routes/fuzz.yaml") else { return }
        invariant(route.path.hasPrefix("/v1/"), "a route outside /v1: \(route.path)", target: "routes")
        invariant(
            RequestPath.problem(RouteLoader.pathPattern(route.path, placeholder: "p")) == nil,
            "a route path with another spelling: \(route.path)", target: "routes")
    }
}
