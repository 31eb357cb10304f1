import Dispatch

/// Where work whose cost an upstream answer decides runs — redacting an error body, reading
/// its message, scrubbing it: on a thread of its own (a serial dispatch queue), never on the
/// event loops that serve every request (in the gateway they also run Swift's tasks). Each job
/// is bounded by what it is given (an error body is cut at `UpstreamHTTP.maxErrorBodyBytes`),
/// so the queue drains; while it does, `/healthz` and kept answers are served beside it.
public enum UntrustedWork {
    private static let queue = DispatchQueue(label: "daygate.untrusted-text", qos: .utility)

    /// Runs `work` on the untrusted-work thread and returns its value.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
