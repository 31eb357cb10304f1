import CoreMetrics
import Foundation
import Logging
import Model

/// The cache: a memory tier in front of the SQLite store, one `CacheEntryStateMachine` per
/// key, single-flight fetches, background revalidation, stale-if-error and per-request
/// deadlines. A hot hit is one actor hop and one dictionary lookup; SQLite is read only when
/// a key is not in memory, and written once per successful fetch.
public actor CacheStore {
    public nonisolated let database: CacheDatabase
    /// Every change to cached data, for live clients.
    public nonisolated let changes = CacheChangeFeed()
    private let maxBytes: Int
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var memory: MemoryTier
    /// One state machine per key: it decides what each request, fetch result, invalidation
    /// and expiry means; this actor carries out its actions.
    private var machines: [CacheKey: CacheEntryStateMachine] = [:]
    /// Storage keys invalidated while SQLite could not delete them: their rows hold data from
    /// before a write and are not read again, until they are deleted or stored anew.
    private var undeleted: Set<String> = []
    /// Waiters by key, numbered in the order they asked (see `CacheEntryStateMachine`).
    private var waiters: [CacheKey: [UInt64: Waiter]] = [:]
    private var nextWaiterID: UInt64 = 0
    /// The policy and fetch of each fetch in flight (to start it again for those who asked
    /// after a change overtook it).
    private var inFlight: [CacheKey: InFlightFetch] = [:]

    private struct InFlightFetch {
        var policy: CachePolicy
        var fetch: @Sendable () async throws -> CacheValue
        /// Which fetch this is: a result is taken only from the fetch still in flight, not from
        /// one abandoned past `fetchLimit`.
        var id: UInt64
        var task: Task<Void, Never>?
        var startedAt = ContinuousClock.now
    }
    private var nextFetchID: UInt64 = 0
    /// How long a fetch may run before it is abandoned: cancelled, counted as failed (its
    /// waiters get the stale entry or a timeout) and its key freed for the next request.
    private let fetchLimit: Duration
    /// Waits out `fetchLimit` for one fetch (a test decides when it ends instead of the clock).
    /// How a fetch's limit is timed: nil for `DeadlineTimers` (no task of its own per fetch);
    /// tests give a wait they end themselves.
    private let overrunTimer: (@Sendable (Duration) async -> Void)?

    private nonisolated let book: CacheCounterBook
    /// Advances on every change to what is cached (see `CacheGeneration`).
    public nonisolated let generation = CacheGeneration()

    private struct Waiter {
        var continuation: CheckedContinuation<CacheLookupResult, Never>
        var forced: Bool
        var collapsed: Bool
        var timeoutError: ErrorDetail
        var timer: DeadlineTimers.Timer?
    }

    public init(
        database: CacheDatabase, maxBytes: Int, memoryBytes: Int,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        logger: Logger = Logger(label: "daygate.cache"), fetchLimit: Duration = .seconds(60),
        overrunTimer: (@Sendable (Duration) async -> Void)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.fetchLimit = fetchLimit
        self.overrunTimer = overrunTimer
        self.database = database
        self.book = CacheCounterBook(factory: metrics)
        self.maxBytes = maxBytes
        self.memory = MemoryTier(maxBytes: memoryBytes)
        self.logger = logger
        self.now = now
    }

    /// Answers `key` from the cache or through `fetch`, following `CacheEntryStateMachine`.
    /// - Parameters:
    ///   - forceRefresh: skip a fresh entry and refetch (single-flighted); stale-if-error applies.
    ///   - deadline: how long this caller waits for a fetch; after it the caller gets the stale
    ///     entry or a timeout with `timeoutError`, and the fetch goes on to fill the cache.
    ///   - fetch: the upstream call; returns the normalised body to store.
    public func lookup(
        _ key: CacheKey, policy: CachePolicy, forceRefresh: Bool = false,
        deadline: Duration? = nil,
        timeoutError: ErrorDetail = ErrorDetail(
            code: "upstream_timeout", message: "the backend did not answer in time"),
        fetch: @escaping @Sendable () async throws -> CacheValue
    ) async -> CacheLookupResult {
        let now = self.now()
        var machine = loadMachine(key, now: now)
        let action = machine.request(now: now, forceRefresh: forceRefresh)
        machines[key] = machine

        switch action {
        case .serveFresh:
            guard let item = item(for: key, now: now) else {
                return await lookupAfterLosingEntry(
                    key, policy: policy, forceRefresh: forceRefresh, deadline: deadline, timeoutError: timeoutError,
                    fetch: fetch)
            }
            count(key, .hits)
            return CacheLookupResult(outcome: .fresh, value: item.value, windows: item.windows)

        case .serveStaleAndRevalidate(let startFetch):
            if startFetch { start(key, policy: policy, fetch: fetch) }
            guard let item = item(for: key, now: now) else {
                return await wait(
                    for: key, forced: false, collapsed: !startFetch, deadline: deadline, timeoutError: timeoutError)
            }
            count(key, .staleServes)
            return CacheLookupResult(outcome: .staleRevalidating, value: item.value, windows: item.windows)

        case .waitForFetch(let startFetch):
            if startFetch {
                start(key, policy: policy, fetch: fetch)
            } else {
                count(key, .collapsed)
            }
            return await wait(
                for: key, forced: forceRefresh, collapsed: !startFetch, deadline: deadline, timeoutError: timeoutError)

        case .serveStaleAndRetry(let error, let startFetch):
            if startFetch { start(key, policy: policy, fetch: fetch) }
            guard let item = item(for: key, now: now) else {
                return await wait(
                    for: key, forced: false, collapsed: !startFetch, deadline: deadline, timeoutError: timeoutError)
            }
            count(key, .staleServes)
            return CacheLookupResult(outcome: .staleAfterError, value: item.value, windows: item.windows, error: error)

        case .serveStale(let error):
            guard let item = item(for: key, now: now) else {
                return CacheLookupResult(outcome: .failed, error: error)
            }
            count(key, .staleServes)
            return CacheLookupResult(outcome: .staleAfterError, value: item.value, windows: item.windows, error: error)

        case .fail(let error):
            count(key, .misses)
            return CacheLookupResult(outcome: .failed, error: error)
        }
    }

    /// The body was in neither tier although the state machine had windows for it (evicted
    /// for size): forget the windows and answer as for a cold key.
    private func lookupAfterLosingEntry(
        _ key: CacheKey, policy: CachePolicy, forceRefresh: Bool, deadline: Duration?, timeoutError: ErrorDetail,
        fetch: @escaping @Sendable () async throws -> CacheValue
    ) async -> CacheLookupResult {
        machines[key]?.entryLost()
        return await lookup(
            key, policy: policy, forceRefresh: forceRefresh, deadline: deadline, timeoutError: timeoutError,
            fetch: fetch)
    }

    /// Ends the freshness of `operation`'s entries for `profile` (a backend's hint that its
    /// data changed): entries stay, the next request serves them and revalidates; a fetch on
    /// its way is kept only as stale. Tells live clients (`invalidated`) when an entry in
    /// memory was touched.
    public func expire(profile: String, operation: String) {
        let now = self.now()
        var touched = false
        generation.advance()
        for key in Set(memory.items.keys).union(machines.keys)
        where key.belongs(toProfile: profile, operation: operation) {
            var machine = loadMachine(key, now: now)
            let actions = machine.expire(now: now, firstWaiterAfter: nextWaiterID + 1)
            machines[key] = machine
            touched = perform(actions, for: key) || touched
        }
        if touched { changes.publish(CacheChange(kind: .invalidated, profile: profile, operation: operation)) }
    }

    /// After a write: drops the entries of `operation` for `profile` whose typed arguments
    /// `matches` (all by default) from both tiers, and always tells live clients
    /// (`invalidated`), since the data behind them changed. A fetch on its way for a dropped
    /// entry still answers those who asked before, but what it brings is not kept. Rows
    /// stored before their arguments were (see `CacheDatabase`, `v5-entry-arguments`) are
    /// dropped whatever `matches` says. Returns how many entries were dropped.
    @discardableResult
    public func invalidate(
        profile: String, operation: String,
        where matches: @Sendable ([String: ArgumentValue]) -> Bool = { _ in true }
    ) async -> Int {
        var doomedRows: Set<String> = []
        do {
            for row in try database.entryArguments(profile: profile, operation: operation)
            where row.arguments.map(matches) ?? true {
                doomedRows.insert(row.key)
            }
        } catch {
            logger.error("cache invalidation could not list entries", metadata: ["error": "\(error)"])
        }
        let doomedKeys = Set(memory.items.keys).union(machines.keys).filter { key in
            key.belongs(toProfile: profile, operation: operation)
                && (doomedRows.contains(key.storageKey) || matches(key.arguments))
        }
        generation.advance()
        for key in doomedKeys {
            var machine = machines[key] ?? CacheEntryStateMachine()
            let actions = machine.invalidate(firstWaiterAfter: nextWaiterID + 1)
            machines[key] = machine
            perform(actions, for: key)
            if actions.contains(.deleteRow) { doomedRows.insert(key.storageKey) }
        }
        // Not read from SQLite from here on (the delete below suspends), until they are gone.
        undeleted.formUnion(doomedRows)
        do {
            try await database.delete(keys: Array(doomedRows))
            undeleted.subtract(doomedRows)
        } catch {
            logger.error(
                "cache invalidation could not delete from SQLite; those entries are not read from it again",
                metadata: ["error": "\(error)"])
        }
        changes.publish(CacheChange(kind: .invalidated, profile: profile, operation: operation))
        return doomedRows.count
    }

    /// Carries out what `key`'s machine decided after a change, except deleting its row, which
    /// the caller does (in one batch for an invalidation). Returns whether an entry in memory
    /// was republished.
    @discardableResult
    private func perform(_ actions: [CacheEntryStateMachine.ChangeAction], for key: CacheKey) -> Bool {
        var republished = false
        for action in actions {
            switch action {
            case .dropFromMemory:
                memory.remove(key)
            case .deleteRow:
                break
            case .markOvertaken(let reason):
                logger.debug(
                    "a fetch in flight was overtaken; what it brings is not kept as fresh",
                    metadata: ["operation": "\(key.operation)", "change": "\(reason.rawValue)"])
            case .republish(let windows):
                if let item = memory.items[key] {
                    memory.put(key, value: item.value, windows: windows)
                    republished = true
                }
            case .forgetMachine:
                machines.removeValue(forKey: key)
            }
        }
        return republished
    }

    /// What the cache did, summed over the entries of `profile` (all when nil) whose operation
    /// is `operation` (all when nil).
    public nonisolated func counters(profile: String? = nil, operation: String? = nil) -> CacheCounters {
        book.total(profile: profile, operation: operation)
    }

    /// Counts lookups answered without asking the cache: the sections of a reused composed
    /// answer, built under the current generation — per operation of `profile` a hit (fresh)
    /// or a stale serve (refresh on its way), every time the handle's `count()` is called.
    public nonisolated func reusedLookups(profile: String, _ lookups: [(operation: String, event: CacheCounters.Event)])
        -> ReusedLookups
    {
        book.reusedLookups(profile: profile, lookups)
    }

    /// Brings the Prometheus counters up to date with the uses of reused answers (`ReusedLookups`).
    public nonisolated func foldReusedLookups() {
        book.fold()
    }

    public var memoryStats: (entries: Int, bytes: Int) {
        (memory.items.count, memory.bytes)
    }

    // MARK: - internals

    private func loadMachine(_ key: CacheKey, now: Date) -> CacheEntryStateMachine {
        if let machine = machines[key] { return machine }
        if machines.count > 10_000 { sweepIdleMachines(now: now) }
        return CacheEntryStateMachine(windows: item(for: key, now: now)?.windows)
    }

    private func item(for key: CacheKey, now: Date) -> MemoryTier.Item? {
        if let item = memory.get(key) { return item }
        guard !undeleted.contains(key.storageKey) else { return nil }
        do {
            guard let stored = try database.entry(forKey: key.storageKey, now: now) else { return nil }
            memory.put(key, value: stored.value, windows: stored.windows)
            return memory.get(key)
        } catch {
            logger.error("cache read failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func sweepIdleMachines(now: Date) {
        for (key, machine) in machines where machine.isIdle(now: now) && memory.items[key] == nil && waiters[key] == nil
        {
            machines.removeValue(forKey: key)
        }
    }

    private func start(_ key: CacheKey, policy: CachePolicy, fetch: @escaping @Sendable () async throws -> CacheValue) {
        count(key, .fetches)
        nextFetchID += 1
        let id = nextFetchID
        inFlight[key] = InFlightFetch(policy: policy, fetch: fetch, id: id)
        // The fetch's own work prefers the executor of the request that started it
        // (`TaskPlacement`); its bookkeeping runs on this actor, as a task started here would.
        let task = Task(executorPreference: TaskPlacement.preferred) {
            await self.run(key, id: id, policy: policy, fetch: fetch)
        }
        inFlight[key]?.task = task
    }

    /// A fetch's task (`start`): the fetch, its deadline, then its outcome kept and told.
    private func run(
        _ key: CacheKey, id: UInt64, policy: CachePolicy, fetch: @escaping @Sendable () async throws -> CacheValue
    ) async {
        let database = self.database
        let maxBytes = self.maxBytes
        let clock = self.now
        let logger = self.logger
        let limit = fetchLimit
        let timer = overrunTimer
        let overran: @Sendable () -> Void = { Task { await self.fetchOverran(key, id: id, limit: limit) } }
        let overrun: DeadlineTimers.Timer?
        let overrunTask: Task<Void, Never>?
        if let timer {
            overrun = nil
            overrunTask = Task {
                await timer(limit)
                if !Task.isCancelled { overran() }
            }
        } else {
            overrun = DeadlineTimers.shared.schedule(at: .now + limit, overran)
            overrunTask = nil
        }
        defer {
            overrun?.cancel()
            overrunTask?.cancel()
        }
        do {
            let value = try await fetch()
            guard self.isInFlight(key, id: id) else { return }
            let windows = policy.windows(fetchedAt: clock(), freshFor: value.freshFor)
            let stored: Bool
            do {
                try await database.store(
                    .init(key: key, value: value, windows: windows), maxBytes: maxBytes, now: clock())
                stored = true
            } catch {
                stored = false
                logger.error("cache write failed; serving from memory", metadata: ["error": "\(error)"])
            }
            guard let kept = self.fetchSucceeded(key, id: id, value: value, windows: windows) else { return }
            if stored { await self.storedAnew(key.storageKey, kept: kept) }
        } catch {
            self.fetchFailed(key, id: id, error: error)
        }
    }

    private func isInFlight(_ key: CacheKey, id: UInt64) -> Bool {
        inFlight[key]?.id == id
    }

    /// A fetch still running after `fetchLimit`: cancelled and counted as failed, so that its
    /// waiters are answered and the next request starts a fetch of its own.
    private func fetchOverran(_ key: CacheKey, id: UInt64, limit: Duration) {
        guard let flight = inFlight[key], flight.id == id else { return }
        flight.task?.cancel()
        logger.warning(
            "a fetch ran past its limit and was abandoned",
            metadata: ["operation": "\(key.operation)", "limit": "\(limit)"])
        fetchFailed(
            key, id: id,
            error: ErrorDetail(
                code: "upstream_timeout",
                message:
                    "the backend's answer did not end within \(limit.components.seconds) s; the fetch was abandoned"))
    }

    /// What is in flight, for the operator's dump (`SIGUSR1`): each key with a fetch on its way
    /// (how long it has run) or requests waiting (how many).
    public var pendingReport: [PendingFetch] {
        let now = ContinuousClock.now
        return Set(inFlight.keys).union(waiters.keys).map { key in
            PendingFetch(
                profile: key.profile, operation: key.operation, running: inFlight[key].map { now - $0.startedAt },
                waiters: waiters[key]?.count ?? 0, limit: fetchLimit)
        }.sorted { ($0.running ?? .zero) > ($1.running ?? .zero) }
    }

    /// Carries out what the machine decides about a fetch that brought `value`. Returns whether
    /// its row may be read again (not when an invalidation overtook the fetch).
    private func fetchSucceeded(_ key: CacheKey, id: UInt64, value: CacheValue, windows: EntryWindows) -> Bool? {
        guard inFlight[key]?.id == id else { return nil }
        let now = self.now()
        let again = inFlight.removeValue(forKey: key)
        var machine = machines[key] ?? CacheEntryStateMachine()
        let action = machine.fetchSucceeded(windows: windows, now: now)
        machines[key] = machine
        generation.advance()
        switch action {
        case .storeAndResumeWaiters(let stored):
            if memory.items[key]?.value != value {
                changes.publish(CacheChange(kind: .updated, profile: key.profile, operation: key.operation))
            }
            memory.put(key, value: value, windows: stored)
            resumeWaiters(key, value: value, windows: stored, of: waiters.removeValue(forKey: key) ?? [:])
            return true
        case .resumeEarlierWaiters(let firstWaiterAfter, let actions):
            overtakenFetchSucceeded(
                key, value: value, windows: windows, firstWaiterAfter: firstWaiterAfter, actions: actions, again: again)
            return !actions.contains(.deleteRow)
        }
    }

    /// A fetch that a change overtook: those who asked before the change get what it brought;
    /// `actions` keep it as stale or drop it; those who asked after the change wait for a new
    /// fetch.
    private func overtakenFetchSucceeded(
        _ key: CacheKey, value: CacheValue, windows: EntryWindows, firstWaiterAfter: UInt64,
        actions: [CacheEntryStateMachine.ChangeAction], again: InFlightFetch?
    ) {
        for action in actions {
            switch action {
            case .republish(let stale):
                memory.put(key, value: value, windows: stale)
            case .deleteRow:
                // Not read from SQLite again until deleted (after this, without suspending here).
                undeleted.insert(key.storageKey)
                Task { await self.deleteUndeleted() }
            case .dropFromMemory, .markOvertaken, .forgetMachine:
                perform([action], for: key)
            }
        }
        var before = waiters.removeValue(forKey: key) ?? [:]
        let after = before.filter { id, _ in id >= firstWaiterAfter }
        for id in after.keys { before.removeValue(forKey: id) }
        if !after.isEmpty, let again {
            waiters[key] = after
            var machine = machines[key] ?? CacheEntryStateMachine()
            _ = machine.request(now: now(), forceRefresh: true)
            machines[key] = machine
            start(key, policy: again.policy, fetch: again.fetch)
        } else {
            before.merge(after) { first, _ in first }
        }
        resumeWaiters(key, value: value, windows: windows, of: before)
    }

    /// `storageKey`'s row was written: when what it holds is kept it may be read again; and the
    /// storage takes writes again, so what invalidations could not delete is deleted now.
    private func storedAnew(_ storageKey: String, kept: Bool) async {
        if kept { undeleted.remove(storageKey) }
        await deleteUndeleted()
    }

    /// Deletes what invalidations could not — but not the rows of keys with a fetch in flight:
    /// that fetch overwrites the row, and a delete queued after its write would lose it (while
    /// it is in flight the old row is still not read).
    private func deleteUndeleted() async {
        guard !undeleted.isEmpty else { return }
        let keys = undeleted.subtracting(inFlight.keys.map(\.storageKey))
        guard !keys.isEmpty else { return }
        do {
            try await database.delete(keys: Array(keys))
            undeleted.subtract(keys)
        } catch {
            logger.debug(
                "entries invalidated earlier still cannot be deleted from SQLite", metadata: ["error": "\(error)"])
        }
    }

    private func resumeWaiters(_ key: CacheKey, value: CacheValue, windows: EntryWindows, of waiting: [UInt64: Waiter])
    {
        for (_, waiter) in waiting {
            waiter.timer?.cancel()
            count(key, .misses)
            waiter.continuation.resume(
                returning: CacheLookupResult(
                    outcome: waiter.forced ? .refreshed : .miss, value: value, windows: windows,
                    collapsed: waiter.collapsed
                ))
        }
    }

    private func fetchFailed(_ key: CacheKey, id: UInt64, error: any Error) {
        guard inFlight[key]?.id == id else { return }
        let detail: ErrorDetail
        var retryAfter: Double?
        if let failure = error as? any UpstreamFailure {
            detail = failure.detail
            retryAfter = failure.retryAfter
        } else if let plain = error as? ErrorDetail {
            detail = plain
        } else {
            detail = ErrorDetail(code: "upstream_error", message: "the backend call failed")
            logger.warning(
                "unclassified fetch error",
                metadata: ["operation": "\(key.operation)", "error.type": "\(type(of: error))"])
        }
        let now = self.now()
        inFlight.removeValue(forKey: key)
        var machine = machines[key] ?? CacheEntryStateMachine()
        let action = machine.fetchFailed(now: now, error: detail, retryAfter: retryAfter)
        machines[key] = machine
        if let windows = machine.windows, memory.items[key]?.windows != windows {
            perform([.republish(windows)], for: key)
        }
        generation.advance()
        count(key, .fetchFailures)
        if machine.consecutiveFailures == 1 {
            changes.publish(CacheChange(kind: .failed, profile: key.profile, operation: key.operation))
        }
        let item: MemoryTier.Item?
        if case .resumeWaitersWithStale = action {
            item = self.item(for: key, now: now)
        } else {
            item = nil
        }
        for (_, waiter) in waiters.removeValue(forKey: key) ?? [:] {
            waiter.timer?.cancel()
            if let item {
                count(key, .staleServes)
                waiter.continuation.resume(
                    returning: CacheLookupResult(
                        outcome: .staleAfterError, value: item.value, windows: item.windows, error: detail,
                        collapsed: waiter.collapsed
                    ))
            } else {
                count(key, .misses)
                waiter.continuation.resume(
                    returning: CacheLookupResult(outcome: .failed, error: detail, collapsed: waiter.collapsed))
            }
        }
    }

    private func wait(
        for key: CacheKey, forced: Bool, collapsed: Bool, deadline: Duration?, timeoutError: ErrorDetail
    ) async -> CacheLookupResult {
        nextWaiterID += 1
        let id = nextWaiterID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                var waiter = Waiter(
                    continuation: continuation, forced: forced, collapsed: collapsed, timeoutError: timeoutError)
                if let deadline {
                    waiter.timer = DeadlineTimers.shared.schedule(at: .now + deadline) {
                        Task { await self.deadlineReached(key, waiterID: id) }
                    }
                }
                waiters[key, default: [:]][id] = waiter
                // Cancelled before it waited: the handler found nobody to answer.
                if Task.isCancelled { deadlineReached(key, waiterID: id) }
            }
        } onCancel: {
            // The caller left (its request was cancelled): it stops waiting now, as at its
            // deadline; the fetch goes on for the others and the cache.
            Task { await self.deadlineReached(key, waiterID: id) }
        }
    }

    private func deadlineReached(_ key: CacheKey, waiterID: UInt64) {
        guard let waiter = waiters[key]?.removeValue(forKey: waiterID) else { return }
        waiter.timer?.cancel()
        if waiters[key]?.isEmpty == true { waiters.removeValue(forKey: key) }
        let now = self.now()
        let machine = machines[key] ?? CacheEntryStateMachine()
        count(key, .timeouts)
        switch machine.deadlineReached(now: now) {
        case .serveStale:
            if let item = item(for: key, now: now) {
                count(key, .staleServes)
                waiter.continuation.resume(
                    returning: CacheLookupResult(
                        outcome: .staleAfterTimeout, value: item.value, windows: item.windows,
                        error: waiter.timeoutError, collapsed: waiter.collapsed
                    ))
                return
            }
            fallthrough
        case .timeout:
            waiter.continuation.resume(
                returning: CacheLookupResult(
                    outcome: .timedOut, error: waiter.timeoutError, collapsed: waiter.collapsed))
        }
    }

    private func count(_ key: CacheKey, _ event: CacheCounters.Event) {
        book.count(profile: key.profile, operation: key.operation, event)
    }
}
