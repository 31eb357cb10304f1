import Foundation
import Model

/// How one backend (or one scope of it, such as a Kantine Koning enrollment) is doing, as
/// `/v1/sources` shows it: last success and error, circuit, `Retry-After`, call and error
/// counts. Names, times and counts only, never a credential.
public struct SourceHealth: Encodable, Sendable {
    public struct LastError: Encodable, Sendable {
        public var code: String
        public var message: String
        public var at: String
    }

    @Nullable public var lastSuccess: String?
    @Nullable public var lastError: LastError?
    public var circuit: CircuitBreaker.Phase
    @Nullable public var circuitOpenUntil: String?
    @Nullable public var retryAfterUntil: String?
    public var calls: Int
    public var errors: Int

    enum CodingKeys: String, CodingKey {
        case lastSuccess = "last_success"
        case lastError = "last_error"
        case circuit
        case circuitOpenUntil = "circuit_open_until"
        case retryAfterUntil = "retry_after_until"
        case calls, errors
    }

    /// One source's figures, times in the household's zone.
    public init(_ status: UpstreamMonitor.Status, zone: TimeZone) {
        func time(_ date: Date?) -> String? { date.map { LenientDate.format($0, in: zone) } }
        lastSuccess = time(status.lastSuccess)
        lastError = status.lastError.map {
            LastError(code: $0.code, message: $0.message, at: LenientDate.format($0.at, in: zone))
        }
        circuit = status.circuit
        circuitOpenUntil = time(status.circuitOpenUntil)
        retryAfterUntil = time(status.retryAfterUntil)
        calls = status.calls
        errors = status.errors
    }

    /// A backend's own line when it calls per scope: its circuit, and the calls and errors of
    /// all its scopes, with the latest success and error of any.
    public init(backend status: UpstreamMonitor.Status, scopes: [UpstreamMonitor.Status], zone: TimeZone) {
        self.init(status, zone: zone)
        guard !scopes.isEmpty else { return }
        calls = scopes.reduce(0) { $0 + $1.calls }
        errors = scopes.reduce(0) { $0 + $1.errors }
        lastSuccess = scopes.compactMap(\.lastSuccess).max().map { LenientDate.format($0, in: zone) }
        if let last = scopes.compactMap(\.lastError).max(by: { $0.at < $1.at }) {
            lastError = LastError(code: last.code, message: last.message, at: LenientDate.format(last.at, in: zone))
        }
    }
}

/// One scope of a backend in `/v1/sources` (a Kantine Koning enrollment, a calendar): its own
/// keys and its health side by side in one JSON object.
public struct ScopedSourceHealth<Scope: Encodable & Sendable>: Encodable, Sendable {
    public var scope: Scope
    public var health: SourceHealth

    public init(_ scope: Scope, health: SourceHealth) {
        self.scope = scope
        self.health = health
    }

    public func encode(to encoder: any Encoder) throws {
        try scope.encode(to: encoder)
        try health.encode(to: encoder)
    }
}
