import Aggregation
import Backends
import Foundation
import Gateway
import HTTPTypes
import HummingbirdTesting
import Model
import Simulators
import Synchronization
import Testing

@testable import daygate

/// Every backend against every fault its simulator can inject, through the real gateway
/// (`DemoHarness`: a simulator per backend, the demo's wiring, the standard circuit policy):
///
/// - (a) warm cache: a `no-cache` refetch that fails answers 200 with the cached data, the
///   section `stale` and an error code that says what went wrong;
/// - (b) cold cache (other parameters): 502, or 504 when the backend was too slow, with the
///   answer's envelope and the section `error`/`timeout` — always JSON;
/// - (c) a 401 in the middle of a session: renewed once, answers ok;
/// - (d) while the backend fails, 200 requests over ~3 s (plain and `no-cache`) reach it only a
///   handful of times (per-key backoff, the source's circuit, `Retry-After`);
/// - (e) once the fault is cleared the section recovers. The runtime's clock is moved 65 s on
///   for that (past the 30 s open circuit, the 60 s `Retry-After` of an injected 429 and any key
///   backoff), instead of waiting.
///
/// Each case has its own harness, so the cases run in parallel.
@Suite("Fault suite")
struct FaultSuiteTests {
    static let zone = DemoHarness.zone

    /// The backends under test here. Calendar feeds answer a fault differently by design (a
    /// feed that is down serves its last copy with an issue; garbage is a `bad_feed` issue),
    /// so they have their own tests (ICSGatewayTests), and the demo's calendars are left out
    /// of this suite's profile so `/v1/events` is 8alls' alone.
    static let kinds = SimulatorKind.allCases.filter { $0 != .ics }
    static func withoutCalendars(_ profile: inout ProfileConfig) { profile.ics = nil }
    static let noCache: HTTPFields = [.cacheControl: "no-cache"]
    static var today: LocalDate { LocalDate.today(in: zone) }

    // MARK: - The faults

    enum Fault: String, Sendable, CaseIterable {
        /// Past the route deadline (2 s).
        case latency
        case serverError
        case reset
        case garbage
        case rateLimited

        /// What `POST /_sim/faults` gets.
        var json: String {
            switch self {
            case .latency: #"{"latency_ms":2600}"#
            case .serverError: #"{"error_status":500}"#
            case .reset: #"{"down":"reset"}"#
            case .garbage: #"{"garbage":true}"#
            case .rateLimited: #"{"error_status":429}"#
            }
        }

        /// Error codes that say what happened. After repeated failures the source's circuit may
        /// open, and then the code says so instead.
        var codes: Set<String> {
            switch self {
            case .latency: ["upstream_timeout"]
            case .serverError: ["upstream_error", "upstream_circuit_open"]
            case .reset: ["upstream_unreachable", "upstream_circuit_open"]
            case .garbage: ["upstream_bad_response"]
            case .rateLimited: ["upstream_rate_limited"]
            }
        }

        /// The answer without any cached data: 504 only when every section ran out of time.
        var coldStatus: Int { self == .latency ? 504 : 502 }
        var coldSectionStatus: String { self == .latency ? "timeout" : "error" }
    }

    /// A backend's route: path, section, warm parameters and other (cold) parameters. The five
    /// backends written here have their route and their call counts spelled out; any other backend
    /// in the catalog gets them from the route files (``derived(_:)``), so a new backend is in this
    /// suite without editing it.
    struct Target: Sendable {
        var kind: SimulatorKind
        var path: String
        var section: String
        /// The route parameter that makes distinct cold requests, and how.
        var coldParameter: ColdParameter
        /// Upstream sources behind the route (each with its own circuit): Kantine Koning has one
        /// per enrollment.
        var sources = 1
        /// Most upstream calls one fetch makes (no login: the session exists after the warm-up):
        /// Tickedify checks its session before the plan, PRSNL its token before the timeline,
        /// FitIQ reads the food logs of the local day's UTC days beside the day summary (for the
        /// goal), Kantine Koning asks every enrollment.
        var callsPerFetch = 1
        /// Cache entries one request of the route fetches: `/v1/knowledge/recent` keeps its items
        /// and its `next_cursor` as two entries that share one page read while both are asked
        /// at once, but back off on their own when it fails; `/v1/nutrition` its day summary and
        /// its food logs (each at most two calls: the logs, and the summary or a food).
        var entriesPerRequest = 1

        enum ColdParameter: Sendable {
            /// `?date=`: today warm, 10 + n days ago cold.
            case date
            /// `?name=warm` warm, `?name=cold+n` cold (an integer the route accepts).
            case integer(name: String, warm: Int, cold: Int)
            /// Kantine Koning's window: 7 past days warm, 20 + n cold.
            case pastDays
        }

        /// Throws, failing the one test, for a backend that has no route to make cold requests with.
        init(_ kind: SimulatorKind) throws {
            self.kind = kind
            if kind == .tickedify {
                (path, section, coldParameter, callsPerFetch) = ("/v1/plan", "plan", .date, 2)
            } else if kind == .eightalls {
                (path, section, coldParameter) = ("/v1/events", "events", .date)
            } else if kind == .kantinekoning {
                (path, section, coldParameter) = ("/v1/diensten", "diensten", .pastDays)
                sources = KantineKoningSimulator.demoEnrollments.count
                callsPerFetch = sources
            } else if kind == .fitiq {
                (path, section, coldParameter, callsPerFetch, entriesPerRequest) = (
                    "/v1/nutrition", "nutrition", .date, 2, 2
                )
            } else if kind == .prsnl {
                (path, section, callsPerFetch, entriesPerRequest) = ("/v1/knowledge/recent", "items", 2, 2)
                coldParameter = .integer(name: "limit", warm: 10, cold: 20)
            } else {
                self = try Self.derived(kind)
            }
        }

        /// A backend this suite does not spell out: the first route of the route files whose
        /// sections are all this backend's and that takes a date (or an integer) to make cold
        /// requests with; one call per fetch, one source, one entry per section.
        static func derived(_ kind: SimulatorKind) throws -> Target {
            let routes = (try? RouteLoader(registry: .standard).load(directory: GatewayHarness.routesDir)) ?? []
            for route in routes
            where !route.sections.isEmpty && route.household == nil && route.pathParameterNames.isEmpty {
                guard route.sections.allSatisfy({ $0.operation.backend == kind.rawValue }) else { continue }
                let cold: ColdParameter
                if route.parameters.contains(where: { $0.name == "date" && $0.kind == .date }) {
                    cold = .date
                } else if let integer = route.parameters.first(where: { $0.kind == .int }) {
                    let low = integer.min ?? 1
                    cold = .integer(name: integer.name, warm: low, cold: low + 1)
                } else {
                    continue
                }
                var target = Target(kind: kind, path: route.path, section: route.sections[0].name, coldParameter: cold)
                target.entriesPerRequest = route.sections.count
                return target
            }
            throw NoColdRoute(kind: kind)
        }

        /// A backend none of whose routes alone takes a date or an integer: the suite cannot make
        /// its cold requests, and says so for that backend instead of stopping the whole run.
        struct NoColdRoute: Error, CustomStringConvertible {
            var kind: SimulatorKind
            var description: String {
                "no route of \(kind)'s alone takes a date or an integer: add one, or spell the backend out in FaultSuiteTests.Target"
            }
        }

        private init(kind: SimulatorKind, path: String, section: String, coldParameter: ColdParameter) {
            self.kind = kind
            self.path = path
            self.section = section
            self.coldParameter = coldParameter
        }

        var warm: String { cold(-1) }

        /// Distinct parameters (`n` ≥ 0) that nothing has cached yet; -1 is the warm ones.
        func cold(_ n: Int) -> String {
            switch coldParameter {
            case .date:
                "\(path)?date=\(n < 0 ? FaultSuiteTests.today : FaultSuiteTests.today.adding(days: -10 - n))"
            case .pastDays: "\(path)?past_days=\(n < 0 ? 7 : 20 + n)&future_days=60"
            case .integer(let name, let warm, let cold): "\(path)?\(name)=\(n < 0 ? warm : cold + n)"
            }
        }
    }

    // MARK: - One test per fault, for every backend

    @Test("latency past the route deadline", arguments: FaultSuiteTests.kinds)
    func latencyPastTheDeadline(kind: SimulatorKind) async throws {
        try await Self.exercise(.latency, on: kind)
    }

    @Test("500s", arguments: FaultSuiteTests.kinds)
    func serverErrors(kind: SimulatorKind) async throws {
        try await Self.exercise(.serverError, on: kind)
    }

    @Test("connection reset", arguments: FaultSuiteTests.kinds)
    func connectionReset(kind: SimulatorKind) async throws {
        try await Self.exercise(.reset, on: kind)
    }

    @Test("garbage JSON", arguments: FaultSuiteTests.kinds)
    func garbageJSON(kind: SimulatorKind) async throws {
        try await Self.exercise(.garbage, on: kind)
    }

    @Test("429 with Retry-After", arguments: FaultSuiteTests.kinds)
    func rateLimited(kind: SimulatorKind) async throws {
        try await Self.exercise(.rateLimited, on: kind)
    }

    /// A 401 in the middle of a session: Tickedify drops its server sessions, FitIQ and PRSNL
    /// expire every access token issued so far. Kantine Koning has no session (one static token
    /// per enrollment; a revoked token is covered by
    /// `AllBackendsTests.oneRefusedEnrollmentMakesTheSectionPartial`), and 8alls has no auth.
    @Test("401 in the middle of a session", arguments: [SimulatorKind.tickedify, .fitiq, .prsnl])
    func sessionLostMidway(kind: SimulatorKind) async throws {
        let target = try Target(kind)
        let clock = HotPathTests.SteppingClock()
        try await withDemo(adjust: Self.withoutCalendars, now: { clock.read() }) { demo in
            try await demo.test { client in
                let warm = try await Self.warmUp(client, target)
                let before = try await Self.renewals(kind, demo)
                switch kind {
                case SimulatorKind.tickedify:
                    _ = try await demo.call(kind, .POST, "/_sim/sessions/expire")
                    // Past the session trust window: the calls check the session first (inside it
                    // a forgotten session costs a crashed call, TickedifySessionTrustSimulatorTests).
                    clock.set(clock.read().addingTimeInterval(31))
                case SimulatorKind.prsnl:
                    _ = try await demo.call(kind, .POST, "/_sim/tokens/expire", json: #"{"tokens":"access"}"#)
                default: _ = try await demo.call(kind, .POST, "/_sim/tokens/expire")
                }

                // Ten requests at once find the session gone: the warm one refetching, nine cold ones.
                let uris = [target.warm] + (0..<9).map { target.cold($0) }
                let answers = try await withThrowingTaskGroup(of: (String, Int, JSONValue).self) { group in
                    for (index, uri) in uris.enumerated() {
                        group.addTask {
                            let response = try await client.execute(
                                uri: uri, method: .get, headers: index == 0 ? Self.noCache : [:])
                            return (uri, Int(response.status.code), try Self.json(response, uri))
                        }
                    }
                    var all: [(String, Int, JSONValue)] = []
                    for try await answer in group { all.append(answer) }
                    return all
                }
                for (uri, status, body) in answers {
                    #expect(status == 200, "\(uri): \(body)")
                    #expect(
                        body["sections"]?[target.section]?["status"] == .string("ok"),
                        "\(uri): \(body["sections"] ?? .null)")
                    if uri == target.warm {
                        // The same account's data: PRSNL's timeline answers an invalid token with
                        // another (hard-coded test) user's items instead of a 401.
                        #expect(
                            body[target.section] == warm,
                            "\(kind): the refetch after the 401 shows the household's own data, got \(body[target.section] ?? .null)"
                        )
                    }
                }
                let after = try await Self.renewals(kind, demo)
                print("fault-suite 401 \(kind): renewals \(before.total) -> \(after.total) (\(after.detail))")
                #expect(
                    after.total == before.total + 1,
                    "\(kind): one renewal for ten requests, got \(before.total) -> \(after.total)")
                if kind != .tickedify {
                    #expect(
                        after.refreshes == before.refreshes + 1,
                        "\(kind) renews with its refresh token, not the password")
                }

                // The renewed session keeps working: no further renewal.
                let again = try await client.execute(uri: target.warm, method: .get, headers: Self.noCache)
                #expect(try Self.json(again, target.warm)["sections"]?[target.section]?["status"] == .string("ok"))
                #expect(try await Self.renewals(kind, demo).total == after.total)
                if kind == .tickedify {
                    #expect(
                        try await demo.call(.tickedify, .GET, "/_sim/crashes")["count"] == .number(0),
                        "planning never called without a session")
                }
            }
        }
    }

    /// /v1/today with every backend of this suite failing in its own way (the faults in turn, in
    /// catalog order: Tickedify slow, 8alls 500s, Kantine Koning reset, FitIQ garbage, PRSNL 429,
    /// and on): still 200, each backend's sections of the day (from the route file) stale with the
    /// cached data and their own error code, `complete: false`. For another date the dated sections
    /// (those the route passes its `date`) have no data (error, or timeout for a slow backend); an
    /// undated one (PRSNL's newest items, the same for every date) still answers from the cache —
    /// as stale, its refetch having just failed — so the answer stays 200 while there is one.
    @Test("/v1/today with every backend faulted, the faults in turn")
    func todayWithEveryBackendFaulted() async throws {
        let uri = "/v1/today?date=\(Self.today)"
        try await withDemo(adjust: Self.withoutCalendars) { demo in
            let declared = demo.sections(of: "/v1/today")
            let faulted: [TodaySection] = Self.kinds.enumerated().flatMap { index, kind in
                let fault = Fault.allCases[index % Fault.allCases.count]
                let own = declared.filter { $0.operation.backend == kind.rawValue }
                #expect(!own.isEmpty, "\(kind) has no section in /v1/today (routes/today.yaml)")
                return own.map { TodaySection(kind: kind, fault: fault, section: $0) }
            }
            try await demo.test { client in
                var warm: JSONValue = .null
                let limit = ContinuousClock.now + .seconds(15)
                repeat {
                    let response = try await client.execute(uri: uri, method: .get)
                    warm = try Self.json(response, uri)
                    if warm["complete"] == .bool(true) { break }
                    try await Task.sleep(for: .milliseconds(200))
                } while ContinuousClock.now < limit
                try #require(warm["complete"] == .bool(true), "warm-up: \(warm["sections"] ?? .null)")

                for kind in Self.kinds {
                    guard let fault = faulted.first(where: { $0.kind == kind })?.fault else { continue }
                    _ = try await demo.call(kind, .POST, "/_sim/faults", json: fault.json)
                }
                let started = ContinuousClock.now
                let response = try await client.execute(uri: uri, method: .get, headers: Self.noCache)
                let elapsed = Self.seconds(ContinuousClock.now - started)
                let body = try Self.json(response, uri)
                print("fault-suite today: stale answer in \(Self.format(elapsed)) s: \(body["sections"] ?? .null)")
                #expect(response.status == .ok)
                #expect(body["complete"] == .bool(false))
                #expect(body["stale"] == .bool(true))
                for item in faulted {
                    let report = body["sections"]?[item.name]
                    #expect(report?["status"] == .string("stale"), "\(item): \(report ?? .null)")
                    let code = report?["error"]?["code"]?.stringValue ?? "none"
                    #expect(item.fault.codes.contains(code), "\(item): code \(code)")
                    if item.section.mergeInto == nil {
                        #expect(body[item.name] == warm[item.name], "\(item) serves the cached data")
                        #expect(body[item.name] != .null, "\(item)")
                    }
                }
                #expect(elapsed < 6, "the answer comes at the 2 s deadline, not after the slow backend")

                // Another day: nothing cached for the dated sections; the undated ones' entries are
                // the ones whose refetch just failed.
                let undated = faulted.filter { !$0.isDated }
                let coldStatus =
                    !undated.isEmpty ? 200 : faulted.allSatisfy { $0.fault == .latency } ? 504 : 502
                let coldURI = "/v1/today?date=\(Self.today.adding(days: -20))"
                let cold = try await client.execute(uri: coldURI, method: .get)
                let coldBody = try Self.json(cold, coldURI)
                #expect(Int(cold.status.code) == coldStatus, "\(undated.count) undated section(s): \(coldBody)")
                #expect(coldBody["complete"] == .bool(false))
                for item in faulted {
                    let report = coldBody["sections"]?[item.name]
                    let code = report?["error"]?["code"]?.stringValue ?? "none"
                    #expect(item.fault.codes.contains(code), "\(item) cold: \(report ?? .null)")
                    if item.isDated {
                        #expect(
                            report?["status"] == .string(item.fault.coldSectionStatus),
                            "\(item) cold: \(report ?? .null)")
                        if item.section.mergeInto == nil { #expect(coldBody[item.name] == .null, "\(item) cold") }
                    } else {
                        #expect(report?["status"] == .string("stale"), "\(item) cold: \(report ?? .null)")
                        if item.section.mergeInto == nil {
                            #expect(coldBody[item.name] == warm[item.name], "\(item) cold serves the cached data")
                        }
                    }
                }
            }
        }
    }

    /// A section of `/v1/today` and the fault its backend has in ``todayWithEveryBackendFaulted()``.
    struct TodaySection: Sendable, CustomStringConvertible {
        var kind: SimulatorKind
        var fault: Fault
        var section: RouteSection
        var name: String { section.name }
        /// The route passes its `date` to the section: another day is another entry.
        var isDated: Bool { section.arguments.values.contains(.parameter("date")) }
        var description: String { "\(name) (\(kind), \(fault))" }
    }

    // MARK: - The scenario

    static func exercise(_ fault: Fault, on kind: SimulatorKind) async throws {
        let clock = ShiftableClock()
        let target = try Target(kind)
        let label = "\(kind) \(fault)"
        try await withDemo(adjust: Self.withoutCalendars, now: clock.now) { demo in
            try await demo.test { client in
                let warm = try await Self.warmUp(client, target)
                let faults = try await demo.call(kind, .POST, "/_sim/faults", json: fault.json)
                #expect(faults != .null, "\(label): faults set")

                // (a) Warm cache: a refetch that fails serves the cached data as stale.
                var started = ContinuousClock.now
                let staleResponse = try await client.execute(uri: target.warm, method: .get, headers: Self.noCache)
                let staleSeconds = Self.seconds(ContinuousClock.now - started)
                let stale = try Self.json(staleResponse, "\(label) warm")
                let report = stale["sections"]?[target.section]
                #expect(staleResponse.status == .ok, "\(label) warm: \(stale)")
                #expect(report?["status"] == .string("stale"), "\(label) warm: \(report ?? .null)")
                #expect(report?["cache"] == .string("stale"), "\(label) warm: \(report ?? .null)")
                let code = report?["error"]?["code"]?.stringValue ?? "none"
                #expect(fault.codes.contains(code), "\(label) warm: code \(code)")
                #expect(stale[target.section] == warm, "\(label) warm: the cached data")
                #expect(stale["complete"] == .bool(false))
                #expect(stale["stale"] == .bool(true))
                if fault == .latency {
                    #expect(staleSeconds >= 1.9, "\(label): answered at the deadline, after \(staleSeconds) s")
                }

                // (b) Cold cache: 502/504 with the envelope, the section error/timeout.
                started = ContinuousClock.now
                let coldResponse = try await client.execute(uri: target.cold(0), method: .get)
                let coldSeconds = Self.seconds(ContinuousClock.now - started)
                let cold = try Self.json(coldResponse, "\(label) cold")
                let coldReport = cold["sections"]?[target.section]
                #expect(Int(coldResponse.status.code) == fault.coldStatus, "\(label) cold: \(cold)")
                for key in ["sections", "complete", "stale", "age_seconds", target.section] {
                    #expect(cold[key] != nil, "\(label) cold: envelope has \(key)")
                }
                #expect(cold["complete"] == .bool(false))
                #expect(cold[target.section] == .null)
                #expect(
                    coldReport?["status"] == .string(fault.coldSectionStatus), "\(label) cold: \(coldReport ?? .null)")
                #expect(coldReport?["cache"] == .string("none"), "\(label) cold: \(coldReport ?? .null)")
                let coldCode = coldReport?["error"]?["code"]?.stringValue ?? "none"
                #expect(fault.codes.contains(coldCode), "\(label) cold: code \(coldCode)")
                print(
                    "fault-suite \(label): warm \(code) in \(Self.format(staleSeconds)) s, cold \(coldResponse.status.code) \(coldCode) in \(Self.format(coldSeconds)) s"
                )

                // (d) Hammered while failing: only a handful of upstream calls.
                if fault != .latency {
                    try await Self.hammer(fault, target, demo: demo, client: client)
                }

                // (e) Cleared: the section recovers once the waits are over — the entry's
                // backoff and the circuit's open window, which doubles with each re-opening
                // up to `maximumOpenFor` (how often it re-opened depends on the machine's pace).
                // The runtime's clock moves only when the test moves it, so it moves a second
                // with every try as well: a failure of the hammer's that is recorded after the
                // first move (a fetch still on its way when the fault was cleared) re-opens the
                // circuit for a second, and a frozen clock would keep it open for ever (CI saw
                // PRSNL stuck at "tries again in 1 s" for 75 tries on a busy machine).
                _ = try await demo.call(kind, .POST, "/_sim/faults", json: "{}")
                clock.advance(by: CircuitBreaker.Policy.standard.maximumOpenFor + 5)
                started = ContinuousClock.now
                let deadline = ContinuousClock.now + .seconds(20)
                var recovered: JSONValue = .null
                var attempts = 0
                repeat {
                    attempts += 1
                    let response = try await client.execute(uri: target.warm, method: .get, headers: Self.noCache)
                    recovered = try Self.json(response, "\(label) recovery")
                    if response.status == .ok, recovered["sections"]?[target.section]?["status"] == .string("ok") {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(250))
                    clock.advance(by: 1)
                } while ContinuousClock.now < deadline
                print(
                    "fault-suite \(label): recovered after \(attempts) request(s), \(Self.format(Self.seconds(ContinuousClock.now - started))) s"
                )
                #expect(
                    recovered["sections"]?[target.section]?["status"] == .string("ok"),
                    "\(label) recovery: \(recovered["sections"] ?? .null)")
                #expect(recovered[target.section] != .null && recovered[target.section] != nil)
                let coldAgain = try await client.execute(uri: target.cold(0), method: .get)
                let coldAgainBody = try Self.json(coldAgain, "\(label) cold recovery")
                #expect(coldAgain.status == .ok, "\(label) cold recovery: \(coldAgainBody)")
                #expect(
                    coldAgainBody["sections"]?[target.section]?["status"] == .string("ok"),
                    "\(label) cold recovery: \(coldAgainBody["sections"] ?? .null)")
            }
        }
    }

    /// 200 requests in 20 waves of 10, 150 ms apart (~3 s): the warm and the cold parameters,
    /// plain and `no-cache`. Every answer is JSON with the expected status; the simulator sees
    /// at most `callBound` calls.
    static func hammer(_ fault: Fault, _ target: Target, demo: DemoHarness, client: any TestClientProtocol) async throws
    {
        let kind = target.kind
        let label = "\(kind) \(fault)"
        _ = try await demo.call(kind, .POST, "/_sim/stats/reset")
        let started = ContinuousClock.now
        var problems: [String] = []
        var outcomes: [String: Int] = [:]
        for wave in 0..<20 {
            let answers = try await withThrowingTaskGroup(of: (String, String?).self) { group in
                for index in 0..<10 {
                    let n = wave * 10 + index
                    let isCold = n % 2 == 1
                    let forced = (n / 2) % 2 == 0
                    let uri = isCold ? target.cold(0) : target.warm
                    group.addTask {
                        let response = try await client.execute(
                            uri: uri, method: .get, headers: forced ? Self.noCache : [:])
                        let type = response.headers[.contentType] ?? ""
                        guard type.hasPrefix("application/json"),
                            let body = try? JSONDecoder().decode(
                                JSONValue.self, from: Data(response.body.readableBytesView))
                        else {
                            return (
                                "not-json",
                                "\(uri): \(response.status) \(type) \(String(buffer: response.body).prefix(120))"
                            )
                        }
                        let report = body["sections"]?[target.section]
                        let status = report?["status"]?.stringValue ?? "none"
                        let code = report?["error"]?["code"]?.stringValue
                        let outcome =
                            "\(isCold ? "cold" : "warm")\(forced ? "+no-cache" : "") \(response.status.code) \(status) \(code ?? "-")"
                        let expected: Bool =
                            switch (isCold, forced) {
                            case (true, _):
                                response.status.code == 502 && status == "error" && fault.codes.contains(code ?? "")
                            case (false, true):
                                response.status == .ok && status == "stale" && fault.codes.contains(code ?? "")
                            // A fresh entry answers without asking the backend: as fresh until a
                            // refetch of it failed, then as stale with that error (the data kept).
                            case (false, false):
                                response.status == .ok
                                    && (status == "ok" || (status == "stale" && fault.codes.contains(code ?? "")))
                            }
                        return (outcome, expected ? nil : "\(uri) \(forced ? "no-cache" : "plain"): \(outcome)")
                    }
                }
                var all: [(String, String?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            for (outcome, problem) in answers {
                outcomes[outcome, default: 0] += 1
                if let problem { problems.append(problem) }
            }
            try await Task.sleep(for: .milliseconds(150))
        }
        let elapsed = seconds(ContinuousClock.now - started)
        let stats = try await demo.call(kind, .GET, "/_sim/stats")
        let calls = Int(stats["total"]?.numberValue ?? -1)
        let bound = callBound(fault, target, seconds: elapsed + 0.5)
        let circuits = demo.runtime.http.monitor.statuses(profile: "default")
            .filter { $0.source.backend == kind.rawValue }
            .map { "\($0.source.scope ?? kind.rawValue)=\($0.circuit.rawValue)" }.sorted().joined(separator: ",")
        print(
            "fault-suite \(label): hammer 200 requests in \(format(elapsed)) s -> \(calls) upstream calls (bound \(bound)) \(stats["calls"] ?? .null); circuits \(circuits); answers \(outcomes.sorted { $0.key < $1.key })"
        )
        #expect(problems.isEmpty, "\(label): \(problems.count) unexpected answers, e.g. \(problems.prefix(5))")
        #expect(
            calls >= 0 && calls <= bound,
            "\(label): \(calls) upstream calls while hammered for \(format(elapsed)) s; bound \(bound)")
    }

    /// Most upstream calls two keys can cause in `seconds` while the backend fails.
    /// - Per key: it failed before the hammer (checks a and b), so its backoff (1 s doubling)
    ///   lets at most ⌊log2(T + 1)⌋ + 1 fetches start in T seconds; a fetch makes up to
    ///   `callsPerFetch` calls, and a reset connection is tried up to 3 times (2 retries).
    /// - 500 or reset: each source's circuit opens after 5 failed calls in a row and stays open
    ///   30 s, longer than the hammer; calls already admitted when it opens (one per key) still go.
    /// - 429: its `Retry-After: 60` holds back every call to the source after the first one.
    /// - Garbage is a 200 to the circuit: only the per-key backoff bounds it.
    static func callBound(_ fault: Fault, _ target: Target, seconds: Double) -> Int {
        let keys = 2 * target.entriesPerRequest
        let fetchesPerKey = Int(log2(seconds + 1)) + 1
        let attemptsPerCall = fault == .reset ? 3 : 1
        let byBackoff = keys * fetchesPerKey * target.callsPerFetch * attemptsPerCall
        switch fault {
        case .serverError, .reset:
            return min(byBackoff, target.sources * (CircuitBreaker.Policy.standard.failureThreshold + keys - 1))
        case .rateLimited:
            return min(byBackoff, target.sources * keys)
        case .garbage, .latency:
            return byBackoff
        }
    }

    // MARK: - Helpers

    /// Asks until the section is ok (the machine may be slow: a first answer can miss the
    /// deadline, and its fetch fills the cache); returns the section's data.
    static func warmUp(_ client: any TestClientProtocol, _ target: Target) async throws -> JSONValue {
        let limit = ContinuousClock.now + .seconds(15)
        var body: JSONValue = .null
        repeat {
            let response = try await client.execute(uri: target.warm, method: .get)
            body = try json(response, "\(target.kind) warm-up")
            if response.status == .ok, body["sections"]?[target.section]?["status"] == .string("ok") {
                return try #require(body[target.section])
            }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < limit
        throw FaultSuiteFailure(message: "\(target.kind) warm-up never answered ok: \(body)")
    }

    /// Every gateway answer is JSON, labelled so.
    static func json(_ response: TestResponse, _ context: String) throws -> JSONValue {
        let type = response.headers[.contentType] ?? ""
        #expect(type.hasPrefix("application/json"), "\(context): Content-Type \(type)")
        do {
            return try response.json
        } catch {
            Issue.record("\(context): \(response.status) is not JSON: \(String(buffer: response.body).prefix(200))")
            throw error
        }
    }

    struct Renewals {
        var logins: Int
        var refreshes: Int
        var total: Int { logins + refreshes }
        var detail: String { "logins \(logins), refreshes \(refreshes)" }
    }

    /// How often the gateway logged in or refreshed, as the simulator counted it.
    static func renewals(_ kind: SimulatorKind, _ demo: DemoHarness) async throws -> Renewals {
        switch kind {
        case SimulatorKind.tickedify:
            let stats = try await demo.call(kind, .GET, "/_sim/stats")
            return Renewals(logins: Int(stats["calls"]?["POST /api/auth/login"]?.numberValue ?? 0), refreshes: 0)
        default:
            let auth = try await demo.call(kind, .GET, "/_sim/auth")
            return Renewals(
                logins: Int(auth["logins"]?.numberValue ?? -1), refreshes: Int(auth["refreshes"]?.numberValue ?? -1))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ seconds: Double) -> String {
        String(format: "%.2f", seconds)
    }
}

struct FaultSuiteFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Wall-clock time that a test can move forward (the runtime's `now`).
final class ShiftableClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var now: @Sendable () -> Date {
        { [self] in Date().addingTimeInterval(offset.withLock { $0 }) }
    }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
