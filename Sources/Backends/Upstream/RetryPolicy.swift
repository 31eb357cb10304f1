import Foundation
import Model
import NIOHTTP1

/// When an upstream read is tried again: only idempotent methods (GET, HEAD), only after a
/// failure that says nothing was done and may pass — the connection failed, or the backend
/// answered 502, 503 (without `Retry-After`) or 504 — at most `maximumRetries` times, after a
/// pause with full jitter (random up to `base × 2^(n-1)`), and only while the call's own time
/// limit leaves room. Timeouts are not retried (the time is spent), nor 500s (a bug upstream
/// answers the same), nor 429 (`Retry-After` decides), nor any write.
public struct RetryPolicy: Sendable {
    public var maximumRetries: Int
    public var base: Duration
    /// The least time a retry is given; no retry starts with less left.
    public var minimumAttempt: Duration

    public init(
        maximumRetries: Int = 2, base: Duration = .milliseconds(100), minimumAttempt: Duration = .milliseconds(250)
    ) {
        self.maximumRetries = maximumRetries
        self.base = base
        self.minimumAttempt = minimumAttempt
    }

    public static let standard = RetryPolicy()
    public static let none = RetryPolicy(maximumRetries: 0)

    func allows(method: HTTPMethod, response: UpstreamHTTP.Response, attempt: Int) -> Bool {
        guard isIdempotent(method), attempt < maximumRetries else { return false }
        return response.status == 502 || response.status == 504
            || (response.status == 503 && response.headers.first(name: "Retry-After") == nil)
    }

    func allows(method: HTTPMethod, failure: BackendError, attempt: Int) -> Bool {
        isIdempotent(method) && attempt < maximumRetries && failure.kind == .unreachable
    }

    /// The pause before retry `attempt` (1-based): full jitter.
    public func pause(before attempt: Int) -> Duration {
        let ceiling = base * (1 << max(0, min(attempt - 1, 10)))
        return .milliseconds(Int64(Double.random(in: 0...max(1, ceiling.milliseconds))))
    }

    private func isIdempotent(_ method: HTTPMethod) -> Bool {
        method == .GET || method == .HEAD
    }
}
