/// The decisions of `DeadlineTimers`, without a clock or a task: which actions are due when
/// (earliest first), and when the one runner that waits for them must wake.
///
/// A timer is cancelled by taking it out at once (an indexed heap: its place is known), so that
/// the earliest entry is always a live one and a runner never wakes for a timer that is gone
/// sooner than needed. A runner is started (or a new one replaces the current) only when a timer
/// is due before the current runner wakes; most deadlines are "now + a fixed limit", later than
/// every one before them, and start nothing.
public struct DeadlineSchedule<Action> {
    public typealias Instant = ContinuousClock.Instant

    private struct Entry {
        var at: Instant
        var id: UInt64
        var action: Action
    }

    /// A min-heap by `at` (then by `id`, so that equal deadlines keep their order).
    private var heap: [Entry] = []
    /// Each timer's place in `heap`.
    private var places: [UInt64: Int] = [:]
    private var lastID: UInt64 = 0
    /// When the current runner wakes; nil when no runner runs.
    public private(set) var runnerWakes: Instant?
    /// The current runner: an older one that wakes is told to stop.
    public private(set) var runner: UInt64 = 0

    /// What `add` asks of the caller.
    public enum Start: Equatable, Sendable {
        /// The current runner wakes in time.
        case none
        /// Start runner `id`, to sleep until `until` (a runner already running is superseded).
        case runner(UInt64, until: Instant)
    }

    public init() {}

    /// Timers waiting.
    public var count: Int { heap.count }

    /// Schedules `action` for `deadline`; its id cancels it.
    public mutating func add(_ action: Action, at deadline: Instant) -> (id: UInt64, start: Start) {
        lastID += 1
        let id = lastID
        heap.append(Entry(at: deadline, id: id, action: action))
        places[id] = heap.count - 1
        siftUp(heap.count - 1)
        if let wakes = runnerWakes, wakes <= deadline { return (id, .none) }
        runner += 1
        runnerWakes = deadline
        return (id, .runner(runner, until: deadline))
    }

    /// Takes timer `id` out and gives its action back; nil when it already ran or was cancelled.
    @discardableResult
    public mutating func cancel(_ id: UInt64) -> Action? {
        guard let place = places[id] else { return nil }
        return remove(at: place).action
    }

    /// Runner `runner` woke at `now`: the actions due by then (taken out, earliest first), and
    /// when it is to wake next — nil when it is to stop (no timer left, or it was superseded;
    /// the current runner then wakes in time for what is left).
    public mutating func wake(runner: UInt64, now: Instant) -> (due: [Action], next: Instant?) {
        guard runner == self.runner else { return ([], nil) }
        var due: [Action] = []
        while let first = heap.first, first.at <= now {
            due.append(remove(at: 0).action)
        }
        runnerWakes = heap.first?.at
        return (due, runnerWakes)
    }

    private mutating func remove(at place: Int) -> Entry {
        let removed = heap[place]
        places[removed.id] = nil
        let last = heap.removeLast()
        if place < heap.count {
            heap[place] = last
            places[last.id] = place
            siftDown(place)
            siftUp(place)
        }
        return removed
    }

    private func earlier(_ a: Int, _ b: Int) -> Bool {
        heap[a].at < heap[b].at || (heap[a].at == heap[b].at && heap[a].id < heap[b].id)
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        places[heap[a].id] = a
        places[heap[b].id] = b
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard earlier(child, parent) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var first = left
            if left + 1 < heap.count, earlier(left + 1, left) { first = left + 1 }
            guard earlier(first, parent) else { return }
            swapAt(first, parent)
            parent = first
        }
    }
}
