import Synchronization

/// Test support: holds its waiters until `open()`, then lets every waiter (and every later
/// one) through. It ignores cancellation, as a backend that does not answer does. Tests use
/// it instead of the wall clock to order events ("the slow backend answers only after the test
/// has its answer").
public final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public var isOpen: Bool { state.withLock { $0.open } }

    public func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
