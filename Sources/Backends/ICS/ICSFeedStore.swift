import CalendarReader
import Foundation
import Model

/// The copies of the calendar feeds, one per profile, calendar, source and credential, kept
/// in memory: a feed is fetched at most once per its `refresh` interval (conditional GET
/// after the first), however many answers and date ranges need it, and concurrent needs
/// share one fetch. A feed that cannot be fetched serves its last copy with the failure
/// beside it. After a restart the first need fetches again. A copy nobody has needed for a
/// day (a calendar removed from the config, an address or credential changed) is dropped, so
/// months of use do not pile up old feeds.
actor ICSFeedStore {
    static let shared = ICSFeedStore()

    /// What a need gets: the copy, and the failure of the check that could not refresh it.
    struct Answer: Sendable {
        var copy: ICSFeedCopy
        var failure: BackendError?
    }

    private var copies: [String: ICSFeedCopy] = [:]
    /// The last check that failed, until one succeeds: a copy served meanwhile carries it.
    private var failures: [String: (at: Date, error: BackendError)] = [:]
    private var flights: [String: Task<Answer, any Error>] = [:]
    /// When each copy was last needed.
    private var needed: [String: Date] = [:]

    /// How long a copy nobody needs is kept.
    static let unusedLifetime: TimeInterval = 86_400

    func copy(_ key: String) -> ICSFeedCopy? { copies[key] }

    /// The keys of the copies kept now.
    var keys: Set<String> { Set(copies.keys) }

    /// Drops the copies (and failures) not needed since `unusedLifetime` before `now`.
    private func dropUnused(now: Date) {
        for (key, last) in needed where now.timeIntervalSince(last) > Self.unusedLifetime && flights[key] == nil {
            copies[key] = nil
            failures[key] = nil
            needed[key] = nil
        }
    }

    /// The calendar's copy for the context's profile, refreshed first when `ICSRefreshDecision`
    /// says so. One copy per profile, calendar, address and credential.
    func feed(
        _ calendar: ICSSettings.Calendar, timeout: TimeInterval, context: OperationContext,
        limits: ICSLimits = .standard, workers: ICSWorkers = .shared
    ) async throws -> Answer {
        let key = [context.profileName, calendar.name, calendar.fingerprint].joined(separator: "\u{0}")
        let now = context.now
        needed[key] = max(needed[key] ?? now, now)
        dropUnused(now: now)
        // A fetch and its reading end by their own limits; a wait for them ends by this one too.
        let limit = Duration.milliseconds(Int64(timeout * 1000)) + limits.maximumDuration + .seconds(5)
        if let flight = flights[key] {
            return try await SharedFlight.value(
                of: flight, within: limit, backend: ICSSettings.backend, what: "the feed")
        }
        let decision = ICSRefreshDecision.decide(
            copy: copies[key], lastFailure: failures[key]?.at, refresh: calendar.refresh.seconds, now: now)
        guard case .fetch(let ifNoneMatch, let ifModifiedSince) = decision, let source = calendar.source else {
            guard let copy = copies[key] else {
                // Never fetched yet and failed just now: the same failure, not another fetch.
                throw failures[key]?.error
                    ?? BackendError(.badResponse, backend: ICSSettings.backend, message: "\(calendar.name): no feed")
            }
            return Answer(copy: copy, failure: failures[key]?.error)
        }
        let previous = copies[key]
        let fetcher = ICSFeedFetcher(
            calendar: calendar, context: context, timeout: timeout, limits: limits, workers: workers)
        let flight = Task<Answer, any Error> {
            do {
                let copy = try await fetcher.fetch(
                    source, previous: previous, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, now: now)
                return Answer(copy: copy, failure: nil)
            } catch let error as BackendError {
                guard let previous else { throw error }
                return Answer(copy: previous, failure: error)
            }
        }
        flights[key] = flight
        defer { flights[key] = nil }
        do {
            let answer = try await SharedFlight.value(
                of: flight, within: limit, backend: ICSSettings.backend, what: "\(calendar.name)'s feed")
            copies[key] = answer.copy
            failures[key] = answer.failure.map { (now, $0) }
            return answer
        } catch {
            failures[key] = (
                now,
                error as? BackendError
                    ?? BackendError(
                        .unreachable, backend: ICSSettings.backend, message: "\(calendar.name) could not be fetched")
            )
            throw error
        }
    }
}
