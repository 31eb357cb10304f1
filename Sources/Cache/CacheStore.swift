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
    private var machines: [String: CacheEntryStateMachine] = [:]
    /// Storage keys (and key prefixes) invalidated while SQLite could not delete them: their rows
    /// hold data from before a write and are not read again, until they are deleted or stored anew.
    private var undeleted: Set<String> = []
    private var undeletedPrefixes: Set<String> = []
    private var waiters: [String: [UInt64: Waiter]] = [:]
    private var nextWaiterID: UInt64 = 0
    /// The policy and fetch of each fetch in flight, by storage key (to start it again when
    /// it was overtaken).
    private var inFlight: [String: InFlightFetch] = [:]
    /// Fetches that were on their way when the data behind them changed (a write's
    /// invalidation, a backend's hint): what they bring may predate the change.
    private var overtaken: [String: Overtaken] = [:]

    private struct InFlightFetch {
        var policy: CachePolicy
        var fetch: @Sendable () async throws -> CacheValue
    }

    private struct Overtaken {
        enum Change { case invalidated, expired }
        var change: Change
        /// Waiters with this id or a later one asked after the change.
        var firstWaiterAfter: UInt64
    }
    private nonisolated let book: CacheCounterBook
    /// Advances on every change to what is cached (see `CacheGeneration`).
    public nonisolated let generation = CacheGeneration()

    private struct Waiter {
        var continuation: CheckedContinuation<CacheLookupResult, Never>
        var forced: Bool
        var collapsed: Bool
        var timeoutError: ErrorDetail
        var timer: Task<Void, Never>?
    }

    public init(
        database: CacheDatabase, maxBytes: Int, memoryBytes: Int,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        logger: Logger = Logger(label: "daygate.cache"), now: @escaping @Sendable () -> Date = { Date() }
    ) {
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
        let storageKey = key.storageKey
        let now = self.now()
        var machine = loadMachine(key: storageKey, now: now)
        let action = machine.request(now: now, forceRefresh: forceRefresh)
        machines[storageKey] = machine

        switch action {
        case .serveFresh:
            guard let item = item(for: storageKey, now: now) else {
                return await lookupAfterLosingEntry(
                    key, policy: policy, forceRefresh: forceRefresh, deadline: deadline, timeoutError: timeoutError,
                    fetch: fetch)
            }
            count(key, .hits)
            return CacheLookupResult(outcome: .fresh, value: item.value, windows: item.windows)

        case .serveStaleAndRevalidate(let startFetch):
            if startFetch { start(key, policy: policy, fetch: fetch) }
            guard let item = item(for: storageKey, now: now) else {
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

        case .serveStale(let error):
            guard let item = item(for: storageKey, now: now) else {
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
        machines[key.storageKey] = CacheEntryStateMachine()
        return await lookup(
            key, policy: policy, forceRefresh: forceRefresh, deadline: deadline, timeoutError: timeoutError,
            fetch: fetch)
    }

    /// Ends the freshness of every entry whose key starts with `prefix` (a backend's hint that
    /// its data changed): entries stay, the next request serves them and revalidates.
    public func expire(storageKeyPrefix prefix: String) {
        let now = self.now()
        var touched = false
        generation.advance()
        for key in Set(memory.items.keys).union(machines.keys) where key.hasPrefix(prefix) {
            var machine = loadMachine(key: key, now: now)
            if machine.fetchInFlight { markOvertaken(key, .expired) }
            machine.markStale(now: now)
            machines[key] = machine
            if let windows = machine.windows, let item = memory.items[key] {
                memory.put(key, value: item.value, windows: windows)
                touched = true
            }
        }
        if touched { publishInvalidated(prefix: prefix) }
    }

    /// Drops entries whose key starts with `prefix` from both tiers.
    public func invalidate(storageKeyPrefix prefix: String) async {
        let dropped = Set(memory.items.keys.filter { $0.hasPrefix(prefix) })
        generation.advance()
        for key in memory.items.keys where key.hasPrefix(prefix) {
            memory.remove(key)
        }
        for key in machines.keys where key.hasPrefix(prefix) {
            forget(key)
        }
        // Not read from SQLite from here on (the delete below suspends), until it is gone.
        undeletedPrefixes.insert(prefix)
        do {
            try await database.delete(storageKeyPrefix: prefix)
            undeletedPrefixes.remove(prefix)
        } catch {
            logger.error(
                "cache invalidation could not delete from SQLite; those entries are not read from it again",
                metadata: ["error": "\(error)"])
        }
        if !dropped.isEmpty { publishInvalidated(prefix: prefix) }
    }

    /// After a write: drops the entries of `operation` for `profile` whose arguments `matches`
    /// (all by default) from both tiers, and always tells live clients (`invalidated`), since
    /// the data behind them changed. Returns how many entries were dropped.
    @discardableResult
    public func invalidate(
        profile: String, operation: String, where matches: @Sendable ([String: String]) -> Bool = { _ in true }
    ) async -> Int {
        let prefix = CacheKey.prefix(profile: profile, operation: operation)
        var candidates = Set(memory.items.keys.filter { $0.hasPrefix(prefix) }).union(
            machines.keys.filter { $0.hasPrefix(prefix) })
        do {
            candidates.formUnion(try database.keys(storageKeyPrefix: prefix))
        } catch {
            logger.error("cache invalidation could not list entries", metadata: ["error": "\(error)"])
        }
        let doomed = candidates.filter { key in CacheKey.arguments(ofStorageKey: key).map(matches) ?? true }
        generation.advance()
        for key in doomed {
            memory.remove(key)
            forget(key)
        }
        // Not read from SQLite from here on (the delete below suspends), until they are gone.
        undeleted.formUnion(doomed)
        do {
            try await database.delete(keys: Array(doomed))
            undeleted.subtract(doomed)
        } catch {
            logger.error(
                "cache invalidation could not delete from SQLite; those entries are not read from it again",
                metadata: ["error": "\(error)"])
        }
        changes.publish(CacheChange(kind: .invalidated, profile: profile, operation: operation))
        return doomed.count
    }

    /// Tells live clients that the entries under `prefix` (`profile|operation|…`) changed.
    private func publishInvalidated(prefix: String) {
        let parts = prefix.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return }
        changes.publish(
            CacheChange(
                kind: .invalidated, profile: parts[0].removingPercentEncoding ?? String(parts[0]),
                operation: parts[1].removingPercentEncoding ?? String(parts[1])
            ))
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

    private func loadMachine(key: String, now: Date) -> CacheEntryStateMachine {
        if let machine = machines[key] { return machine }
        if machines.count > 10_000 { sweepIdleMachines(now: now) }
        return CacheEntryStateMachine(windows: item(for: key, now: now)?.windows)
    }

    private func item(for key: String, now: Date) -> MemoryTier.Item? {
        if let item = memory.get(key) { return item }
        guard !undeleted.contains(key), !undeletedPrefixes.contains(where: { key.hasPrefix($0) }) else { return nil }
        do {
            guard let stored = try database.entry(forKey: key, now: now) else { return nil }
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
        inFlight[key.storageKey] = InFlightFetch(policy: policy, fetch: fetch)
        let database = self.database
        let maxBytes = self.maxBytes
        let clock = self.now
        let logger = self.logger
        Task {
            do {
                let value = try await fetch()
                let windows = policy.windows(fetchedAt: clock())
                let stored: Bool
                do {
                    try await database.store(
                        .init(
                            key: key.storageKey, profile: key.profile, operation: key.operation, value: value,
                            windows: windows),
                        maxBytes: maxBytes, now: clock()
                    )
                    stored = true
                } catch {
                    stored = false
                    logger.error("cache write failed; serving from memory", metadata: ["error": "\(error)"])
                }
                let kept = self.fetchSucceeded(key, value: value, windows: windows)
                if stored { await self.storedAnew(key.storageKey, kept: kept) }
            } catch {
                self.fetchFailed(key, error: error)
            }
        }
    }

    /// Returns whether what the fetch brought is kept (not when a write's invalidation overtook it).
    @discardableResult
    private func fetchSucceeded(_ key: CacheKey, value: CacheValue, windows: EntryWindows) -> Bool {
        let storageKey = key.storageKey
        let again = inFlight.removeValue(forKey: storageKey)
        if let overtaken = overtaken.removeValue(forKey: storageKey) {
            overtakenFetchSucceeded(key, value: value, windows: windows, overtaken: overtaken, again: again)
            return overtaken.change != .invalidated
        }
        var machine = machines[storageKey] ?? CacheEntryStateMachine()
        let action = machine.fetchSucceeded(windows: windows)
        machines[storageKey] = machine
        generation.advance()
        guard case .storeAndResumeWaiters(let stored) = action else { return true }
        if memory.items[storageKey]?.value != value {
            changes.publish(CacheChange(kind: .updated, profile: key.profile, operation: key.operation))
        }
        memory.put(storageKey, value: value, windows: stored)
        resumeWaiters(key, value: value, windows: stored, of: waiters.removeValue(forKey: storageKey) ?? [:])
        return true
    }

    /// `storageKey`'s row was written: when what it holds is kept it may be read again; and the
    /// storage takes writes again, so what invalidations could not delete is deleted now.
    private func storedAnew(_ storageKey: String, kept: Bool) async {
        if kept { undeleted.remove(storageKey) }
        await deleteUndeleted()
    }

    /// Deletes what invalidations could not.
    private func deleteUndeleted() async {
        guard !undeleted.isEmpty || !undeletedPrefixes.isEmpty else { return }
        let keys = undeleted
        let prefixes = undeletedPrefixes
        do {
            try await database.delete(keys: Array(keys))
            undeleted.subtract(keys)
            for prefix in prefixes {
                try await database.delete(storageKeyPrefix: prefix)
                undeletedPrefixes.remove(prefix)
            }
        } catch {
            logger.debug(
                "entries invalidated earlier still cannot be deleted from SQLite", metadata: ["error": "\(error)"])
        }
    }

    /// Forgets an invalidated entry's state; a fetch already on its way stays in flight, but
    /// what it brings is not kept (`overtakenFetchSucceeded`).
    private func forget(_ key: String) {
        guard var machine = machines[key], machine.fetchInFlight else {
            machines.removeValue(forKey: key)
            return
        }
        machine.forgetEntry()
        machines[key] = machine
        markOvertaken(key, .invalidated)
    }

    private func markOvertaken(_ key: String, _ change: Overtaken.Change) {
        if overtaken[key]?.change == .invalidated { return }
        overtaken[key] = Overtaken(change: change, firstWaiterAfter: nextWaiterID + 1)
    }

    /// A fetch that started before the data behind it changed: those who asked before the
    /// change get what it brought; it is not kept as fresh (after an invalidation not kept at
    /// all, after a hint kept as stale); those who asked after the change wait for a new fetch.
    private func overtakenFetchSucceeded(
        _ key: CacheKey, value: CacheValue, windows: EntryWindows, overtaken: Overtaken, again: InFlightFetch?
    ) {
        let storageKey = key.storageKey
        let now = self.now()
        var machine = machines[storageKey] ?? CacheEntryStateMachine()
        _ = machine.fetchSucceeded(windows: windows)
        switch overtaken.change {
        case .invalidated:
            machine = CacheEntryStateMachine()
            memory.remove(storageKey)
            // Not read from SQLite again until deleted (after this, without suspending here).
            undeleted.insert(storageKey)
            Task { await self.deleteUndeleted() }
        case .expired:
            machine.markStale(now: now)
            if let stale = machine.windows { memory.put(storageKey, value: value, windows: stale) }
        }
        generation.advance()
        var before = waiters.removeValue(forKey: storageKey) ?? [:]
        let after = before.filter { id, _ in id >= overtaken.firstWaiterAfter }
        for id in after.keys { before.removeValue(forKey: id) }
        if !after.isEmpty, let again {
            waiters[storageKey] = after
            _ = machine.request(now: now, forceRefresh: true)
            machines[storageKey] = machine
            start(key, policy: again.policy, fetch: again.fetch)
        } else {
            machines[storageKey] = machine
            before.merge(after) { first, _ in first }
        }
        resumeWaiters(key, value: value, windows: windows, of: before)
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

    private func fetchFailed(_ key: CacheKey, error: any Error) {
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
        inFlight.removeValue(forKey: key.storageKey)
        overtaken.removeValue(forKey: key.storageKey)
        var machine = machines[key.storageKey] ?? CacheEntryStateMachine()
        let action = machine.fetchFailed(now: now, error: detail, retryAfter: retryAfter)
        machines[key.storageKey] = machine
        generation.advance()
        count(key, .fetchFailures)
        if machine.consecutiveFailures == 1 {
            changes.publish(CacheChange(kind: .failed, profile: key.profile, operation: key.operation))
        }
        let item: MemoryTier.Item?
        if case .resumeWaitersWithStale = action {
            item = self.item(for: key.storageKey, now: now)
        } else {
            item = nil
        }
        for (_, waiter) in waiters.removeValue(forKey: key.storageKey) ?? [:] {
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
        let storageKey = key.storageKey
        return await withCheckedContinuation { continuation in
            var waiter = Waiter(
                continuation: continuation, forced: forced, collapsed: collapsed, timeoutError: timeoutError)
            if let deadline {
                waiter.timer = Task {
                    try? await Task.sleep(for: deadline)
                    guard !Task.isCancelled else { return }
                    self.deadlineReached(key, waiterID: id)
                }
            }
            waiters[storageKey, default: [:]][id] = waiter
        }
    }

    private func deadlineReached(_ key: CacheKey, waiterID: UInt64) {
        let storageKey = key.storageKey
        guard let waiter = waiters[storageKey]?.removeValue(forKey: waiterID) else { return }
        if waiters[storageKey]?.isEmpty == true { waiters.removeValue(forKey: storageKey) }
        let now = self.now()
        let machine = machines[storageKey] ?? CacheEntryStateMachine()
        count(key, .timeouts)
        switch machine.deadlineReached(now: now) {
        case .serveStale:
            if let item = item(for: storageKey, now: now) {
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
