import Backends
import Cache
import Foundation
import Logging
import Model
import Synchronization

/// Runs a route for a profile: parses its parameters, normalises each section's arguments,
/// asks the cache for every section at once under the route's deadline, and writes the
/// answer with per-section status.
public final class Aggregator: Sendable {
    public let config: DaygateConfig
    public let cache: CacheStore
    public let http: UpstreamHTTP
    public let sessions: SessionRegistry
    private let logger: Logger
    /// The clock every answer is composed with (injectable for tests around midnight and DST).
    public let now: @Sendable () -> Date
    /// Each profile's ``ProfileConfig/settingsFingerprint(of:)`` per backend, computed once:
    /// part of every cache key, beside the operation's credential fingerprint.
    private let settingsFingerprints: [String: [String: String]]
    /// ``fingerprint(of:profileName:profile:)`` per profile and operation, made on first use:
    /// two SHA-256 digests of settings that do not change while this aggregator lives (a reload
    /// makes a new one), which every section of every request otherwise made again.
    private let fingerprints = Mutex<[String: String]>([:])

    public init(
        config: DaygateConfig, cache: CacheStore, http: UpstreamHTTP, sessions: SessionRegistry,
        logger: Logger = Logger(label: "daygate.aggregation"), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.config = config
        self.cache = cache
        self.http = http
        self.sessions = sessions
        self.logger = logger
        self.now = now
        self.settingsFingerprints = config.profiles.mapValues { profile in
            Dictionary(
                uniqueKeysWithValues: profile.configuredBackends.map { ($0, profile.settingsFingerprint(of: $0)) })
        }
    }

    /// What a cache key of `operation` for `profileName` carries besides its arguments: the
    /// account the operation uses and every setting of its backend's section. `profile` is
    /// `config.profiles[profileName]` (the fingerprint is kept per profile name).
    func fingerprint(of operation: any BackendOperation, profileName: String, profile: ProfileConfig) -> String {
        let memo = profileName + "\u{0}" + operation.name
        if let known = fingerprints.withLock({ $0[memo] }) { return known }
        let settings =
            settingsFingerprints[profileName]?[operation.backend] ?? profile.settingsFingerprint(of: operation.backend)
        let made = CredentialFingerprint.of([operation.credentialFingerprint(for: profile), settings])
        fingerprints.withLock { $0[memo] = made }
        return made
    }

    /// The gateway's clock read now, in the household's zone: one reading per request.
    public func clock() -> RequestClock {
        RequestClock(now: now(), timeZone: config.timeZone)
    }

    /// Typed parameter values from the path's `{name}` segments (`path`, percent-decoded) and
    /// the query items; defaults applied ("today" of `clock`). Both go through the same
    /// `RouteParameter.parse`. Unknown and repeated parameters are refused, and so is a path
    /// parameter given in the query (names starting with `_` are ignored, for cache-busting).
    public func parameters(
        for route: Route, query: [(String, String)], path: [String: String] = [:], clock: RequestClock
    ) throws(ErrorDetail) -> [String: ArgumentValue] {
        var raw: [String: String] = [:]
        let inPath = Set(route.pathParameterNames)
        let known = Set(route.parameters.map(\.name)).subtracting(inPath)
        for (name, value) in query where !name.hasPrefix("_") {
            guard !inPath.contains(name) else {
                throw .badParameter("\(name) is part of the path of \(route.path); it cannot be given in the query")
            }
            guard known.contains(name) else {
                let list = known.isEmpty ? "none" : known.sorted().joined(separator: ", ")
                throw .badParameter(
                    "unknown parameter \"\(RouteParameter.shown(name))\" for \(route.path) (parameters: \(list))")
            }
            guard raw[name] == nil else {
                throw .badParameter("\(name) is given more than once")
            }
            raw[name] = value
        }
        for name in route.pathParameterNames {
            guard let value = path[name] else { throw .badParameter("\(name) is required") }
            raw[name] = value
        }
        var values: [String: ArgumentValue] = [:]
        for parameter in route.parameters {
            if let text = raw[parameter.name] {
                values[parameter.name] = try parameter.parse(text)
            }
        }
        for parameter in route.parameters where values[parameter.name] == nil {
            if parameter.defaultUnlessGiven.contains(where: { raw[$0] != nil }) { continue }
            values[parameter.name] = parameter.resolveDefault(timeZone: clock.timeZone, now: clock.now)
        }
        return values
    }

    /// A request for a route, its parameters parsed and defaults resolved ("today" in the
    /// configured time zone): all that decides which entries answer it.
    public struct ResolvedRequest: Sendable {
        public var route: Route
        public var profileName: String
        public var values: [String: ArgumentValue]
        /// The request's now and today, which resolved the defaults and serve the whole answer.
        public var clock: RequestClock

        /// Names the answer: equal for two requests that the same cache entries answer.
        public var answerKey: String {
            var key = profileName + "\u{0}" + route.path
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                key += "\u{0}" + name + "=" + value.description
            }
            return key
        }
    }

    /// Checks the profile and parses the query (see `parameters(for:query:clock:)`), at the
    /// request's moment (`clock`, the gateway's clock now by default).
    public func resolve(
        route: Route, query: [(String, String)], path: [String: String] = [:], profileName: String,
        clock: RequestClock? = nil
    ) throws(ErrorDetail) -> ResolvedRequest {
        guard config.profiles[profileName] != nil else {
            throw ErrorDetail(code: "unknown_profile", message: "no profile \(profileName)")
        }
        let clock = clock ?? self.clock()
        return ResolvedRequest(
            route: route, profileName: profileName,
            values: try parameters(for: route, query: query, path: path, clock: clock), clock: clock
        )
    }

    struct PreparedSection: Sendable {
        var section: RouteSection
        var key: CacheKey
        var arguments: [String: ArgumentValue]
        var policy: CachePolicy
    }

    /// - Parameter logger: the request's logger (its request id goes on every line the
    ///   backends log for this answer); the aggregator's own by default.
    public func run(
        route: Route, query: [(String, String)], path: [String: String] = [:], profileName: String,
        forceRefresh: Bool = false, logger: Logger? = nil
    ) async throws(ErrorDetail) -> AggregateAnswer {
        try await run(
            resolve(route: route, query: query, path: path, profileName: profileName), forceRefresh: forceRefresh,
            logger: logger)
    }

    public func run(_ request: ResolvedRequest, forceRefresh: Bool = false, logger: Logger? = nil)
        async throws(ErrorDetail) -> AggregateAnswer
    {
        let route = request.route
        let profileName = request.profileName
        let values = request.values
        guard let profile = config.profiles[profileName] else {
            throw ErrorDetail(code: "unknown_profile", message: "no profile \(profileName)")
        }
        let generation = cache.generation.current

        var prepared: [PreparedSection] = []
        // A section whose backend refuses the arguments (a date outside the range it can
        // answer): in a route of several sections that section reports it and the rest answer;
        // when every section refuses, the request is the client's mistake (400).
        var refused: [SectionResult] = []
        var firstRefusal: ErrorDetail? = nil
        for section in route.sections where section.operation.isConfigured(for: profile) {
            var arguments: [String: ArgumentValue] = [:]
            for (name, binding) in section.arguments {
                switch binding {
                case .parameter(let parameter): arguments[name] = values[parameter]
                case .literal(let value): arguments[name] = value
                }
            }
            let normalised: [String: ArgumentValue]
            do {
                normalised = try section.operation.normalise(arguments, clock: request.clock)
                try section.operation.validate(normalised, for: profile)
            } catch {
                let detail = error as? ErrorDetail ?? .badParameter("\(error)")
                firstRefusal = firstRefusal ?? detail
                refused.append(Self.refusedSection(section, detail))
                continue
            }
            let ttl = section.ttl ?? config.cache.ttl[section.operation.name]?.seconds ?? section.operation.defaultTTL
            prepared.append(
                PreparedSection(
                    section: section,
                    key: CacheKey(
                        profile: profileName, operation: section.operation.name,
                        arguments: normalised,
                        credentialFingerprint: fingerprint(
                            of: section.operation, profileName: profileName, profile: profile)
                    ),
                    arguments: normalised,
                    policy: CachePolicy(
                        ttl: ttl, staleWhileRevalidate: config.cache.staleWhileRevalidate?.seconds,
                        staleIfError: config.cache.staleIfError.seconds
                    )
                ))
        }

        if let firstRefusal, prepared.isEmpty { throw firstRefusal }

        let context = OperationContext(
            profileName: profileName, profile: profile, clock: request.clock, http: http, sessions: sessions,
            logger: logger ?? self.logger
        )
        let deadline = route.deadline
        let results = await withTaskGroup(of: SectionResult.self) { group in
            for item in prepared {
                group.addTask { [cache] in
                    let started = ContinuousClock.now
                    let operation = item.section.operation
                    let arguments = item.arguments
                    let result = await cache.lookup(
                        item.key, policy: item.policy, forceRefresh: forceRefresh,
                        deadline: .milliseconds(Int64(deadline * 1000)),
                        timeoutError: ErrorDetail(
                            code: "upstream_timeout",
                            message: "\(operation.backend) did not answer in \(UpstreamHTTP.describe(deadline))"
                        )
                    ) {
                        let output = try await operation.fetch(arguments, context: context)
                        return CacheValue(
                            body: output.body, meta: output.issues.isEmpty ? nil : try JSONCoding.encode(output.issues),
                            freshFor: output.freshFor)
                    }
                    let elapsed = ContinuousClock.now - started
                    let milliseconds = elapsed.milliseconds
                    return SectionResult(
                        name: item.section.name, mergeInto: item.section.mergeInto, operation: operation.name,
                        result: result,
                        report: Self.report(
                            result, backend: operation.backend, now: self.now(), durationMs: milliseconds)
                    )
                }
            }
            var collected = refused
            for await result in group { collected.append(result) }
            return collected
        }
        let log = context.logger
        for item in results {
            var metadata: Logger.Metadata = [
                "section": "\(item.name)", "backend": "\(item.report.backend)",
                "status": "\(item.report.status.rawValue)",
                "cache": "\(item.result.outcome.rawValue)", "duration_ms": "\(item.report.durationMs)",
            ]
            if let error = item.report.error {
                metadata["error.code"] = "\(error.code)"
                metadata["error.message"] = "\(error.message)"
                log.warning("section degraded", metadata: metadata)
            } else {
                log.debug("section", metadata: metadata)
            }
        }
        let answer = await composeOffTheLoopsWhenLarge(values: values, results: results)
        var reaging: (@Sendable (_ at: Date) -> AggregateAnswer?)? = nil
        if Self.reagingBytes(results) {
            reaging = { at in self.reaged(values: values, results: results, at: at) }
        }
        return answer.madeAt(generation: generation, profile: profileName, reaging: reaging)
    }

    /// `run`'s answer again at the later moment `at`, from the same lookups: the figures that
    /// move with the clock (each section's age, the remaining freshness in `Cache-Control`,
    /// `Age` and `Cache-Status`) read at `at`, everything else as it was. Nil unless every
    /// section's lookup would still come out the same at `at` — a fresh hit still within its
    /// freshness, a stale serve still within stale-while-revalidate — so a lookup at `at` would
    /// change nothing but those figures (the cache's generation, which the caller checks, says
    /// no refresh has ended since). What `AnswerMemo` keeps a polled answer with when its ages
    /// tick, instead of a new composition through the router.
    func reaged(values: [String: ArgumentValue], results: [SectionResult], at: Date) -> AggregateAnswer? {
        var moved = results
        for index in moved.indices {
            guard let windows = moved[index].result.windows,
                AnswerReaging.staysTheSame(moved[index].result.outcome, windows: windows, at: at)
            else { return nil }
            moved[index].report.ageSeconds = windows.ageSeconds(at: at)
        }
        return compose(values: values, results: moved, now: at)
    }

    /// Whether an answer of these sections is small enough to be aged again where it is asked
    /// (`reaged`, on an event loop): below `largeAnswerBytes`, as `composeOffTheLoopsWhenLarge` decides.
    static func reagingBytes(_ results: [SectionResult]) -> Bool {
        results.reduce(0) { $0 + ($1.result.body?.count ?? 0) } < largeAnswerBytes
    }

    static func report(_ result: CacheLookupResult, backend: String, now: Date, durationMs: Double) -> SectionReport {
        var report = baseReport(result, backend: backend, now: now, durationMs: durationMs)
        if let meta = result.value?.meta, let issues = try? JSONCoding.decoder.decode([SectionIssue].self, from: meta),
            !issues.isEmpty
        {
            report.issues = issues
            if report.status == .ok { report.status = .partial }
        }
        return report
    }

    static func baseReport(_ result: CacheLookupResult, backend: String, now: Date, durationMs: Double) -> SectionReport
    {
        let age = result.windows.map { $0.ageSeconds(at: now) }
        let rounded = (durationMs * 10).rounded() / 10
        switch result.outcome {
        case .fresh:
            return SectionReport(status: .ok, cache: .hit, ageSeconds: age, backend: backend, durationMs: rounded)
        case .miss:
            return SectionReport(status: .ok, cache: .miss, ageSeconds: age, backend: backend, durationMs: rounded)
        case .refreshed:
            return SectionReport(status: .ok, cache: .refreshed, ageSeconds: age, backend: backend, durationMs: rounded)
        case .staleRevalidating:
            return SectionReport(status: .ok, cache: .stale, ageSeconds: age, backend: backend, durationMs: rounded)
        case .staleAfterError, .staleAfterTimeout:
            return SectionReport(
                status: .stale, cache: .stale, ageSeconds: age, backend: backend, durationMs: rounded,
                error: result.error)
        case .failed:
            return SectionReport(
                status: .error, cache: .none, ageSeconds: nil, backend: backend, durationMs: rounded,
                error: result.error)
        case .timedOut:
            return SectionReport(
                status: .timeout, cache: .none, ageSeconds: nil, backend: backend, durationMs: rounded,
                error: result.error)
        }
    }

    /// A section whose backend refused the request's arguments: not asked, reported as an
    /// error with the backend's reason (`bad_parameter`).
    static func refusedSection(_ section: RouteSection, _ detail: ErrorDetail) -> SectionResult {
        SectionResult(
            name: section.name, mergeInto: section.mergeInto, operation: section.operation.name,
            result: CacheLookupResult(outcome: .failed, error: detail),
            report: SectionReport(
                status: .error, cache: .none, ageSeconds: nil, backend: section.operation.backend, durationMs: 0,
                error: detail))
    }

    /// One section's lookup and its report.
    struct SectionResult: Sendable {
        var name: String
        /// The section whose list this one's joins (`merge_into`).
        var mergeInto: String? = nil
        var operation: String
        var result: CacheLookupResult
        var report: SectionReport
    }

    /// Section bodies together at least this large are composed on `largeAnswers`, not on the
    /// event loops: merging lists (`merge_into`) reads and writes every item, and a feed decides
    /// how many there are (up to `ICSEventsOperation.maximumAnswerInstances`). A 5 MB day of a
    /// hostile feed, merged on the loops, held `/healthz` for up to 2 s (the liveness harness).
    static let largeAnswerBytes = 128 * 1024
    /// Where large answers are composed: a thread of its own, one answer at a time.
    private static let largeAnswers = DispatchQueue(label: "daygate.large-answers", qos: .utility)

    /// `compose`, on `largeAnswers` when the sections' bodies are `largeAnswerBytes` or more.
    func composeOffTheLoopsWhenLarge(values: [String: ArgumentValue], results: [SectionResult]) async
        -> AggregateAnswer
    {
        let bytes = results.reduce(0) { $0 + ($1.result.body?.count ?? 0) }
        guard bytes >= Self.largeAnswerBytes else { return compose(values: values, results: results) }
        return await withCheckedContinuation { continuation in
            Self.largeAnswers.async { continuation.resume(returning: self.compose(values: values, results: results)) }
        }
    }

    func compose(values: [String: ArgumentValue], results: [SectionResult], now: Date? = nil) -> AggregateAnswer {
        let now = now ?? self.now()
        var fields: [String: Data] = [:]
        for (name, value) in values {
            fields[name] = Data(JSONValue.quoted(value.description).utf8)
        }
        var reports: [String: SectionReport] = [:]
        var lookups: [String: SectionLookup] = [:]
        var bodies: [String: Data] = [:]
        var complete = true
        var stale = false
        var age = 0
        var maxAge: Int? = nil
        // Every figure in the body that moves with the clock (ages, remaining freshness) is
        // whole seconds: the answer stays byte-for-byte the same until the first of them ticks.
        var reusableUntil: Date? = now.addingTimeInterval(1)
        var reuses: [SectionReuse] = []
        for item in results {
            // Reusable: a fresh hit, or a stale entry whose refresh is on its way (its outcome
            // changes only when the refresh ends, which changes the cache's generation).
            let reuse: CacheCounters.Event? =
                switch item.result.outcome {
                case .fresh: .hits
                case .staleRevalidating: .staleServes
                default: nil
                }
            if let reuse, let windows = item.result.windows, let until = reusableUntil {
                reusableUntil = min(until, Self.nextTick(windows, after: now))
                reuses.append(SectionReuse(operation: item.operation, event: reuse))
            } else {
                reusableUntil = nil
            }
            let report = item.report
            reports[item.name] = report
            bodies[item.name] = item.result.body
            if item.mergeInto == nil { fields[item.name] = item.result.body ?? Data("null".utf8) }
            if report.status != .ok { complete = false }
            if report.cache == .stale { stale = true }
            age = max(age, report.ageSeconds ?? 0)
            let ttl = item.result.windows.map { Int($0.freshUntil.timeIntervalSince(now).rounded(.down)) }
            if let ttl, report.status == .ok || report.status == .partial, report.cache != .stale {
                maxAge = min(maxAge ?? max(0, ttl), max(0, ttl))
            }
            lookups[item.name] = SectionLookup(
                outcome: item.result.outcome, collapsed: item.result.collapsed,
                ttl: item.result.body == nil ? nil : ttl,
                durationMs: report.durationMs, backend: report.backend
            )
        }
        // Lists joined into another section's key, in the order of the sections' names.
        let joining = results.filter { $0.mergeInto != nil }.sorted { $0.name < $1.name }
        for target in Set(joining.compactMap(\.mergeInto)) {
            let parts = [bodies[target]] + joining.filter { $0.mergeInto == target }.map { bodies[$0.name] }
            fields[target] = Self.mergedList(parts)
        }
        fields["complete"] = Data((complete ? "true" : "false").utf8)
        fields["stale"] = Data((stale ? "true" : "false").utf8)
        var validatorFields = fields
        validatorFields["sections"] =
            (try? JSONCoding.encode(reports.mapValues(\.withoutPerResponseFields))) ?? Data("{}".utf8)
        fields["age_seconds"] = Data(String(age).utf8)
        fields["sections"] = (try? JSONCoding.encode(reports)) ?? Data("{}".utf8)

        let status: Int
        if reports.isEmpty || reports.values.contains(where: { $0.status.hasData }) {
            status = 200
        } else if reports.count == 1, let missing = reports.values.first?.error,
            missing.code == BackendError.Kind.notFound.rawValue
        {
            // A route of one section whose backend says the thing asked for does not exist: a 404
            // of the gateway's error shape, not a failed section.
            let body = (try? JSONCoding.encode(ErrorBody(missing))) ?? Data("{}".utf8)
            return AggregateAnswer(
                status: 404, body: body, validatorBody: body, complete: false, stale: false, ageSeconds: 0,
                maxAge: nil, sections: reports, lookups: lookups, sectionBodies: bodies, reusableUntil: nil,
                generation: 0)
        } else if reports.values.allSatisfy({ $0.status == .timeout }) {
            status = 504
        } else {
            status = 502
        }
        return AggregateAnswer(
            status: status, body: JSONObjectWriter.object(fields),
            validatorBody: JSONObjectWriter.object(validatorFields),
            complete: complete, stale: stale, ageSeconds: age, maxAge: complete && !stale ? maxAge : nil,
            sections: reports, lookups: lookups, sectionBodies: bodies,
            reusableUntil: reusableUntil.flatMap { $0 > now ? $0 : nil }, reuses: reusableUntil == nil ? [] : reuses
        )
    }

    /// The first moment after `now` when an entry's whole-second age or remaining freshness
    /// (negative once stale, as `Cache-Status` shows it) changes, or its phase does (freshness
    /// ends, stale-while-revalidate ends).
    static func nextTick(_ windows: EntryWindows, after now: Date) -> Date {
        let age = now.timeIntervalSince(windows.fetchedAt)
        let ageTick = windows.fetchedAt.addingTimeInterval(max(0, age).rounded(.down) + 1)
        let remaining = windows.freshUntil.timeIntervalSince(now)
        let ttlTick = windows.freshUntil.addingTimeInterval(-remaining.rounded(.down))
        let phaseEnd = now < windows.freshUntil ? windows.freshUntil : windows.revalidateUntil
        return min(ageTick, ttlTick, phaseEnd)
    }

}

extension Aggregator {
    /// The lists of several sections as one (`merge_into`): null when none has a body, else the
    /// items of every list, ordered by their `start` time when each item has one (ties keep the
    /// sections' order).
    ///
    /// The bodies are the gateway's own encoding (``JSONCoding``: keys sorted, slashes bare), read
    /// with the gateway's JSON reader and written back in the same order and form (Foundation's
    /// decoder and encoder of `JSONValue` were a fifteenth of a cold day's CPU).
    static func mergedList(_ bodies: [Data?]) -> Data {
        let lists = bodies.compactMap { body -> [JSONValue]? in
            guard let body, case .array(let items)? = try? JSONValue(parsing: body) else { return nil }
            return items
        }
        guard !lists.isEmpty else { return Data("null".utf8) }
        let items = StartOrder.sorted(lists.flatMap { $0 }, start: StartOrder.start(of:))
        return Data(JSONValue.array(items).serialized.utf8)
    }
}
