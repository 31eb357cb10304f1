import Synchronization

/// The hot path's current `HotAnswers`, replaced when a reload brings new routes and config.
/// Each connection's `HotAnswerHandler` keeps a copy and checks the version — one atomic load —
/// before each request, taking the new answers (and forgetting what it remembered of the old
/// ones) when they changed.
final class HotAnswersSource: Sendable {
    private let current: Mutex<HotAnswers>
    private let counter = Atomic<UInt64>(0)

    init(_ answers: HotAnswers) {
        current = Mutex(answers)
    }

    /// Changes with every `replace`.
    var version: UInt64 { counter.load(ordering: .acquiring) }

    /// The answers now, and the version they are at least as new as.
    func latest() -> (answers: HotAnswers, version: UInt64) {
        let version = counter.load(ordering: .acquiring)
        return (current.withLock { $0 }, version)
    }

    func replace(with answers: HotAnswers) {
        current.withLock { $0 = answers }
        counter.add(1, ordering: .releasing)
    }
}
