import Synchronization

/// How many `/v1/stream` connections each client holds, capped per client
/// (`limits.streams_per_client`): a stream never ends on its own, so without a cap one client
/// (a page reloaded in a loop, a script) could hold the whole connection budget.
final class StreamQuota: Sendable {
    let perClient: Int
    private let open = Mutex<[String: Int]>([:])

    init(perClient: Int) {
        self.perClient = perClient
    }

    /// A slot for `client`, given back when the ticket is released (the stream ended, or its
    /// answer was dropped before it began); nil when the client holds its share already.
    func take(for client: String) -> Ticket? {
        let taken = open.withLock { open in
            guard open[client, default: 0] < perClient else { return false }
            open[client, default: 0] += 1
            return true
        }
        return taken ? Ticket(quota: self, client: client) : nil
    }

    func count(for client: String) -> Int {
        open.withLock { $0[client] ?? 0 }
    }

    fileprivate func giveBack(_ client: String) {
        open.withLock { open in
            let left = open[client, default: 1] - 1
            open[client] = left > 0 ? left : nil
        }
    }

    /// One stream's slot; given back once, when the last reference goes.
    final class Ticket: Sendable {
        private let quota: StreamQuota
        private let client: String

        fileprivate init(quota: StreamQuota, client: String) {
            self.quota = quota
            self.client = client
        }

        deinit {
            quota.giveBack(client)
        }
    }
}
