import Synchronization

/// Lines up concurrent add-to-inbox requests between their read of the inbox and their rewrite of
/// it, so a test sees the real server's lost update every time rather than only when its requests
/// happen to overlap inside ``TickedifySimulator/Options/inboxRaceWindow`` (on a loaded machine
/// four requests can arrive further apart than any window).
///
/// With `parties` n, the first n requests wait after their read until all n have read, then go on
/// to their rewrites together; later requests do not wait. Every wait has an end: after `limit` a
/// waiter goes on alone. With `parties` 1 (the default) nobody waits.
final class TickedifyInboxRace: Sendable {
    private struct State {
        var nextID = 0
        /// The line-up happened (or was given up on); later requests go straight on.
        var done = false
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let parties: Int
    let limit: Duration
    private let state = Mutex(State())

    init(parties: Int, limit: Duration = .seconds(5)) {
        self.parties = max(1, parties)
        self.limit = limit
    }

    /// Waits until `parties` requests (this one included) have arrived, or `limit` has passed.
    func arrive() async {
        guard parties > 1, !state.withLock({ $0.done }) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (id, released) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
                if state.done { return (-1, [continuation]) }
                let id = state.nextID
                state.nextID += 1
                state.waiting.append((id, continuation))
                guard state.waiting.count >= parties else { return (id, []) }
                state.done = true
                defer { state.waiting.removeAll() }
                return (id, state.waiting.map(\.continuation))
            }
            for waiter in released { waiter.resume() }
            guard released.isEmpty else { return }
            Task { [limit] in
                try? await Task.sleep(for: limit)
                self.giveUp(id)
            }
        }
    }

    private func giveUp(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            state.done = true
            return state.waiting.remove(at: index).continuation
        }
        continuation?.resume()
    }
}
