import Aggregation
import Foundation
import Gateway
import HummingbirdTesting
import Model
import Simulators
import Testing

/// `refresh_on_start` (`StartRefreshService`): what a start fetches again, and that it does so
/// through the profile's own backends, fresh cache or not.
@Suite struct StartRefreshTests {
    private static func route(_ path: String, refresh: Bool, household: Bool = false) -> Route {
        Route(
            path: path, file: "\(path).yaml", description: nil, deadline: 2, parameters: [], sections: [],
            household: household ? .init() : nil, refreshOnStart: refresh)
    }

    @Test func plansEachMarkedRouteForEveryProfile() {
        let routes = [
            Self.route("/v1/today", refresh: true), Self.route("/v1/events", refresh: false),
            Self.route("/v1/week", refresh: true),
        ]
        let plan = StartRefreshService.plan(routes: routes, profiles: ["mila", "anna"])
        #expect(
            plan == [
                .init(route: "/v1/today", profile: "anna"), .init(route: "/v1/week", profile: "anna"),
                .init(route: "/v1/today", profile: "mila"), .init(route: "/v1/week", profile: "mila"),
            ])
        #expect(StartRefreshService.plan(routes: [Self.route("/v1/events", refresh: false)], profiles: ["a"]).isEmpty)
    }

    @Test func theShippedDayIsRefreshedOnStart() throws {
        let routes = try RouteLoader().load(directory: GatewayHarness.routesDir)
        #expect(routes.filter(\.refreshOnStart).map(\.path) == ["/v1/today"])
    }

    @Test func aHouseholdRouteOrOneWithPathParametersCannotBeMarked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-routes-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
        path: /v1/household/day
        refresh_on_start: true
        household: {}
        sections:
          plan: { operation: tickedify.daily_plan }
        """.write(to: directory.appendingPathComponent("household.yaml"), atomically: true, encoding: .utf8)
        try """
        path: /v1/things/{id}
        refresh_on_start: true
        parameters:
          id: { type: string }
        sections:
          item: { operation: prsnl.item, arguments: { id: $id } }
        """.write(to: directory.appendingPathComponent("item.yaml"), atomically: true, encoding: .utf8)
        let error = #expect(throws: RouteLoadError.self) {
            try RouteLoader().load(directory: directory.path)
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("a household route runs its members' own sections"), "\(text)")
        #expect(text.contains("a route with path parameters has no default request"), "\(text)")
    }

    /// A kept, fresh day is fetched again (that is what opens the connections and proves the
    /// sessions), once per section, and only from the backends the profile configures.
    @Test func refetchesTheDayThroughTheProfilesOwnBackends() async throws {
        try await withDemo(adjust: { $0.fitiq = nil }) { demo in
            try await demo.test { client in
                try await client.execute(uri: "/v1/today", method: .get) { response in
                    #expect(response.status == .ok)
                }
            }
            let plans = {
                demo.simulator(.tickedify).control.callCounts.filter {
                    $0.key.hasPrefix("GET /api/dagelijkse-planning/")
                }
                .values.reduce(0, +)
            }
            let before = plans()
            let events = demo.calls(.eightalls, "GET /api/events")
            #expect(before == 1)

            let outcomes = await StartRefreshService.refresh(runtime: demo.runtime)
            #expect(outcomes.map(\.refresh) == [.init(route: "/v1/today", profile: "default")])
            #expect(outcomes.allSatisfy { $0.complete })
            #expect(plans() == before + 1, "the fresh plan was not fetched again")
            #expect(demo.calls(.eightalls, "GET /api/events") == events + 1)
            #expect(
                demo.simulator(.fitiq).control.callCounts.isEmpty, "a backend the profile does not configure was called"
            )
            #expect(demo.logs.text.contains("refreshed on start"))
        }
    }
}

extension StartRefreshTests {
    /// `daygate_start_refresh_running` is 1 from the start until the refresh has ended, then 0
    /// (what the process tests wait for before they touch the backends).
    @Test func saysInItsMetricsWhenItHasEnded() async throws {
        try await withDemo { demo in
            let (listening, listened) = AsyncStream<Void>.makeStream()
            let service = StartRefreshService(
                gateway: ReloadableGateway(runtime: demo.runtime, hotPath: false), listening: listening)
            let running = Task { try await service.run() }
            func gauge() async throws -> Double? {
                try await demo.test { client in
                    try await client.execute(uri: "/metrics", method: .get) { response in
                        String(buffer: response.body).split(separator: "\n")
                            .first { $0.hasPrefix("daygate_start_refresh_running ") }
                            .flatMap { Double($0.split(separator: " ").last ?? "") }
                    }
                }
            }
            var before: Double?
            for _ in 0..<200 where before == nil {
                before = try await gauge()
                if before == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(before == 1, "before the server listens")
            listened.yield()
            listened.finish()
            // Then it waits for the shutdown, as a service does: the gauge says it has ended.
            var after = try await gauge()
            for _ in 0..<500 where after != 0 {
                try await Task.sleep(for: .milliseconds(10))
                after = try await gauge()
            }
            running.cancel()
            #expect(after == 0)
            #expect(demo.logs.text.contains("refreshed on start"))
        }
    }
}
