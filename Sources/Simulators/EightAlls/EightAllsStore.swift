import Foundation
import Model
import Synchronization

/// One row of 8alls' `events` table.
struct EightAllsEvent: Sendable, Equatable {
    var id: String
    var title: String
    var description: String?
    /// Stored datetimes are microseconds since 1970 on the UTC wall clock. With the Postgres
    /// (`zulu`) style they are real UTC instants; with the SQLite (`naive`) style an input's offset
    /// was dropped, so they are whatever wall time the client sent.
    var startTime: Int64
    var endTime: Int64
    var allDay: Bool = false
    var location: String?
    var recurrenceRule: String?
    var status: String = "confirmed"
    var eventType: String?
    var color: String?
    var tags: [String]? = []
    var attendees: [JSONValue]? = []
    var reminders: [JSONValue]? = []
    var createdAt: Int64?
    var updatedAt: Int64?
    /// Insertion order, the tie-breaker when start times are equal.
    var sequence: Int = 0

    /// The response shape of `schemas/event.py` `Event`, in its field order.
    func json(style: EightAllsSimulator.DateStyle) -> JSONValue {
        func time(_ micros: Int64?) -> JSONValue {
            guard let micros else { return .null }
            return .string(Civil.isoString(micros) + (style == .zulu ? "Z" : ""))
        }
        func opt(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return .object([
            "title": .string(title),
            "description": opt(description),
            "start_time": time(startTime),
            "end_time": time(endTime),
            "all_day": .bool(allDay),
            "location": opt(location),
            "recurrence_rule": opt(recurrenceRule),
            "status": .string(status),
            "event_type": opt(eventType),
            "color": opt(color),
            "tags": tags.map { .array($0.map(JSONValue.string)) } ?? .null,
            "attendees": attendees.map(JSONValue.array) ?? .null,
            "reminders": reminders.map(JSONValue.array) ?? .null,
            "id": .string(id),
            "created_at": time(createdAt),
            "updated_at": time(updatedAt),
        ])
    }
}

/// The simulator's in-memory database, safe to use from any task.
final class EightAllsStore: Sendable {
    private struct State {
        var events: [String: EightAllsEvent] = [:]
        var nextSequence = 0
        var dateStyle: EightAllsSimulator.DateStyle
    }

    private let state: Mutex<State>
    let seedDay: String
    let timeZone: TimeZone

    init(options: EightAllsSimulator.Options) throws {
        guard Civil.parseDay(options.seedDay) != nil else { throw SimulatorError.invalidSeedDay(options.seedDay) }
        self.seedDay = options.seedDay
        self.timeZone = options.timeZone
        self.state = Mutex(State(dateStyle: options.dateStyle))
        reseed()
    }

    var dateStyle: EightAllsSimulator.DateStyle {
        get { state.withLock { $0.dateStyle } }
        set { state.withLock { $0.dateStyle = newValue } }
    }

    /// Drops every event and loads the seeded week again.
    func reseed() {
        let seeded = EightAllsSeed.events(seedDay: seedDay, timeZone: timeZone)
        state.withLock { s in
            s.events = [:]
            s.nextSequence = 0
            for var event in seeded {
                event.sequence = s.nextSequence
                s.nextSequence += 1
                s.events[event.id] = event
            }
        }
    }

    /// Drops every event: an empty `events` table, as the real server starts with.
    func removeAll() {
        state.withLock { s in
            s.events = [:]
            s.nextSequence = 0
        }
    }

    /// Events passing `filter`, sorted by start time ascending, with the style to render them in.
    func list(where filter: (EightAllsEvent) -> Bool) -> ([EightAllsEvent], EightAllsSimulator.DateStyle) {
        state.withLock { s in
            let events = s.events.values.filter(filter).sorted {
                ($0.startTime, $0.sequence) < ($1.startTime, $1.sequence)
            }
            return (events, s.dateStyle)
        }
    }

    func get(_ id: String) -> (EightAllsEvent?, EightAllsSimulator.DateStyle) {
        state.withLock { ($0.events[id], $0.dateStyle) }
    }

    func insert(_ event: EightAllsEvent) -> EightAllsEvent {
        state.withLock { s in
            var event = event
            event.sequence = s.nextSequence
            s.nextSequence += 1
            s.events[event.id] = event
            return event
        }
    }

    /// Runs `body` on the stored event under the lock; nil when it does not exist.
    func update<R>(_ id: String, _ body: (inout EightAllsEvent, EightAllsSimulator.DateStyle) -> R) -> R? {
        state.withLock { s in
            guard var event = s.events[id] else { return nil }
            let result = body(&event, s.dateStyle)
            s.events[id] = event
            return result
        }
    }

    func delete(_ id: String) -> Bool {
        state.withLock { $0.events.removeValue(forKey: id) != nil }
    }

    var count: Int { state.withLock { $0.events.count } }
}
