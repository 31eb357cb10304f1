import Model
import Synchronization

/// Every open `/v1/stream` with the credential it was opened with, across reloads: when a
/// reload takes effect (`configChanged(to:)`) the streams its config no longer admits are told
/// to end (`StreamCredential.isAdmitted(by:)`). A stream opened by a runtime a reload has just
/// replaced is checked against the new config when it registers, so none slips between the
/// two.
final class OpenStreams: Sendable {
    private struct Open: Sendable {
        var credential: StreamCredential
        var end: @Sendable () -> Void
    }

    private struct State {
        var config: DaygateConfig
        var next = 0
        var open: [Int: Open] = [:]
    }

    private let state: Mutex<State>

    init(config: DaygateConfig) {
        state = Mutex(State(config: config))
    }

    var count: Int { state.withLock { $0.open.count } }

    /// Registers a stream about to begin; `end` is called (at most once) when a reload ends
    /// it. Nil when the config in force no longer admits `credential`. The stream is forgotten
    /// when the registration goes.
    func open(_ credential: StreamCredential, end: @escaping @Sendable () -> Void) -> Registration? {
        let id: Int? = state.withLock { state in
            guard credential.isAdmitted(by: state.config) else { return nil }
            state.next += 1
            state.open[state.next] = Open(credential: credential, end: end)
            return state.next
        }
        return id.map { Registration(streams: self, id: $0) }
    }

    /// A reload's config is in force: ends the streams it does not admit; returns how many.
    @discardableResult
    func configChanged(to config: DaygateConfig) -> Int {
        let ended: [Open] = state.withLock { state in
            state.config = config
            let gone = state.open.filter { !$0.value.credential.isAdmitted(by: config) }
            for id in gone.keys { state.open[id] = nil }
            return Array(gone.values)
        }
        for stream in ended { stream.end() }
        return ended.count
    }

    fileprivate func close(_ id: Int) {
        _ = state.withLock { $0.open.removeValue(forKey: id) }
    }

    /// One stream's place in the list; the stream is forgotten when the last reference goes.
    final class Registration: Sendable {
        private let streams: OpenStreams
        private let id: Int

        fileprivate init(streams: OpenStreams, id: Int) {
            self.streams = streams
            self.id = id
        }

        deinit {
            streams.close(id)
        }
    }
}
