import CoreMetrics
import Foundation
import Model
import NIOConcurrencyHelpers

/// What the gateway knows about each upstream source: call and error counts, the last
/// success and the last error, its `CircuitBreaker`, and the time a `Retry-After` asked it to
/// wait until. `UpstreamHTTP` asks it before every call (`admit`) and tells it every outcome
/// (`record`); /v1/sources reads it, and it feeds the upstream metrics.
public final class UpstreamMonitor: Sendable {
    /// The last failed call of a source. Messages are the gateway's own (upstream text trimmed).
    public struct LastError: Sendable, Equatable {
        public var code: String
        public var message: String
        public var at: Date
    }

    /// One source as /v1/sources shows it.
    public struct Status: Sendable, Equatable {
        public var source: UpstreamSource
        public var calls = 0
        public var errors = 0
        public var lastSuccess: Date?
        public var lastError: LastError?
        public var circuit: CircuitBreaker.Phase = .closed
        public var circuitOpenUntil: Date?
        public var retryAfterUntil: Date?

        /// A source nothing has been recorded for yet.
        public init(source: UpstreamSource) {
            self.source = source
        }
    }

    /// How one admitted call ended.
    public enum Outcome: Sendable {
        /// The backend answered with this status; `error` describes a non-2xx answer.
        case answered(status: Int, retryAfter: TimeInterval?, error: ErrorDetail?)
        /// No usable answer (timeout, connection failure, oversized body).
        case failed(BackendError)
        /// The call was cancelled before it ended.
        case abandoned
    }

    /// Longest wait a `Retry-After` can impose (a backend asking for a day is not obeyed blindly).
    public static let maximumRetryAfter: TimeInterval = 3600

    private struct Record {
        var status: Status
        var breaker: CircuitBreaker
    }

    private let records = NIOLockedValueBox<[UpstreamSource: Record]>([:])
    /// Each backend's metric handles, made once: the factory otherwise looks a handle up by
    /// label and dimensions on every call.
    private let handles = NIOLockedValueBox<[String: MetricHandles]>([:])

    private struct MetricHandles {
        var duration: CoreMetrics.Timer
        var requests: [String: Counter] = [:]
    }
    private let policy: CircuitBreaker.Policy
    private let metrics: any MetricsFactory
    private let now: @Sendable () -> Date

    public init(
        policy: CircuitBreaker.Policy = .standard, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.policy = policy
        self.metrics = metrics
        self.now = now
    }

    /// Lets a call through, or throws without calling: `upstream_circuit_open` while the
    /// source's circuit is open, `upstream_rate_limited` while its `Retry-After` runs.
    @discardableResult
    public func admit(_ source: UpstreamSource) throws(BackendError) -> CircuitBreaker.Admission {
        let now = self.now()
        let decision: Result<CircuitBreaker.Admission, BackendError> = records.withLockedValue { records in
            var record =
                records[source] ?? Record(status: Status(source: source), breaker: CircuitBreaker(policy: policy))
            defer { records[source] = record }
            if let until = record.status.retryAfterUntil, until > now {
                let wait = until.timeIntervalSince(now)
                return .failure(
                    BackendError(
                        .rateLimited, backend: source.backend,
                        message:
                            "\(source) asked the gateway to wait; next call in \(UpstreamHTTP.describe(wait.rounded(.up)))",
                        status: 429, retryAfter: wait
                    ))
            }
            let admission = record.breaker.admit(now: now)
            if case .rejected(let retryAt) = admission {
                let wait = max(1, retryAt.timeIntervalSince(now))
                return .failure(
                    BackendError(
                        .circuitOpen, backend: source.backend,
                        message:
                            "\(source) failed \(policy.failureThreshold) times in a row; the gateway tries again in \(UpstreamHTTP.describe(wait.rounded(.up)))",
                        retryAfter: wait
                    ))
            }
            return .success(admission)
        }
        switch decision {
        case .success(let admission):
            return admission
        case .failure(let error):
            Counter(
                label: "daygate_upstream_refused_total",
                dimensions: [("backend", source.backend), ("reason", error.kind.rawValue)], factory: metrics
            ).increment()
            throw error
        }
    }

    /// Records how an admitted call ended. With `gate`, a 429 or 503 with `Retry-After` holds
    /// back every call to the source until then.
    public func record(_ source: UpstreamSource, _ outcome: Outcome, duration: Duration, gate: Bool = true) {
        let now = self.now()
        let label: String
        var failure: ErrorDetail?
        records.withLockedValue { records in
            var record =
                records[source] ?? Record(status: Status(source: source), breaker: CircuitBreaker(policy: policy))
            defer { records[source] = record }
            switch outcome {
            case .answered(let status, let retryAfter, let error):
                record.status.calls += 1
                // No error: a 2xx/3xx, or a 404 the caller expects (`notFoundIsAnswer`).
                if (200..<400).contains(status) || error == nil {
                    record.status.lastSuccess = now
                } else if let error {
                    record.status.errors += 1
                    record.status.lastError = LastError(code: error.code, message: error.message, at: now)
                    failure = error
                }
                if status >= 500 {
                    record.breaker.failed(now: now)
                } else if status != 429 {
                    record.breaker.succeeded()
                }
                if gate, status == 429 || status == 503, let retryAfter, retryAfter > 0 {
                    record.status.retryAfterUntil = now.addingTimeInterval(min(retryAfter, Self.maximumRetryAfter))
                }
            case .failed(let error):
                record.status.calls += 1
                record.status.errors += 1
                record.status.lastError = LastError(code: error.detail.code, message: error.message, at: now)
                failure = error.detail
                record.breaker.failed(now: now)
            case .abandoned:
                record.breaker.abandoned()
            }
        }
        switch outcome {
        case .answered(let status, _, _): label = status == 429 ? "429" : "\(status / 100)xx"
        case .failed(let error): label = error.kind.rawValue
        case .abandoned: label = "cancelled"
        }
        let (requests, timer) = handles(source.backend, result: label)
        requests.increment()
        timer.recordInterval(duration)
        if let failure {
            Counter(
                label: "daygate_upstream_errors_total",
                dimensions: [("backend", source.backend), ("code", failure.code)],
                factory: metrics
            ).increment()
        }
    }

    /// The requests counter of `backend` and `result`, and `backend`'s duration timer.
    private func handles(_ backend: String, result: String) -> (Counter, CoreMetrics.Timer) {
        handles.withLockedValue { all in
            var entry =
                all[backend]
                ?? MetricHandles(
                    duration: CoreMetrics.Timer(
                        label: "daygate_upstream_request_duration_seconds", dimensions: [("backend", backend)],
                        factory: metrics))
            let requests =
                entry.requests[result]
                ?? Counter(
                    label: "daygate_upstream_requests_total", dimensions: [("backend", backend), ("result", result)],
                    factory: metrics)
            if entry.requests[result] == nil {
                entry.requests[result] = requests
                all[backend] = entry
            }
            return (requests, entry.duration)
        }
    }

    /// Forgets what is known of one profile's backend (every scope): its settings changed at a
    /// reload, so the old base URL's failures and open circuit say nothing about the new one.
    public func forget(profile: String, backend: String) {
        records.withLockedValue { records in
            records = records.filter { $0.key.profile != profile || $0.key.backend != backend }
        }
    }

    /// Every source of `profile` that has been called, with circuit phases as of now.
    public func statuses(profile: String) -> [Status] {
        let now = self.now()
        return records.withLockedValue { records in
            records.values.filter { $0.status.source.profile == profile }.map { Self.current($0, now: now) }
        }
    }

    /// Every source of every profile (for /metrics).
    public func allStatuses() -> [Status] {
        let now = self.now()
        return records.withLockedValue { records in records.values.map { Self.current($0, now: now) } }
    }

    private static func current(_ record: Record, now: Date) -> Status {
        var status = record.status
        status.circuit = record.breaker.phase(at: now)
        status.circuitOpenUntil = status.circuit == .open ? record.breaker.openUntil : nil
        if let until = status.retryAfterUntil, until <= now { status.retryAfterUntil = nil }
        return status
    }
}

extension CoreMetrics.Timer {
    public func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
