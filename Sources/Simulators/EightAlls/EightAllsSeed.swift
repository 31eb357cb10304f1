import Foundation
import Model

/// The seeded week: seedDay-3 … seedDay+3, local times in the household's zone, stored as UTC.
/// Everything (ids, created_at) derives from the seed day, so a restart gives the same data.
enum EightAllsSeed {
    private struct Spec {
        var day: Int
        var title: String
        var start: (Int, Int)
        /// End time; `endDay` is relative to `day`.
        var end: (Int, Int)
        var endDay = 0
        var allDay = false
        var type: String?
        var status = "confirmed"
        var tags: [String] = []
        var location: String?
        var color: String?
        var description: String?
        var recurrence: String?
        var attendees: [JSONValue] = []
        var reminders: [JSONValue] = []
        var updated = false
    }

    private static func person(_ name: String, _ email: String) -> JSONValue {
        .object(["name": .string(name), "email": .string(email)])
    }

    private static func reminder(_ minutes: Int, _ method: String = "notification") -> JSONValue {
        .object(["minutes_before": .int(minutes), "method": .string(method)])
    }

    private static func standup(_ day: Int) -> Spec {
        Spec(day: day, title: "Standup", start: (9, 0), end: (9, 15), type: "meeting", tags: ["work"])
    }

    private static func pickup(_ day: Int) -> Spec {
        Spec(day: day, title: "School pickup", start: (15, 15), end: (15, 45), type: "reminder", tags: ["family"])
    }

    private static var specs: [Spec] {
        [
            // seedDay - 3
            standup(-3),
            Spec(
                day: -3, title: "1:1 with Maria", start: (11, 0), end: (11, 30), type: "meeting", tags: ["work"],
                attendees: [person("Maria Jansen", "maria@example.com")]
            ),
            Spec(
                day: -3, title: "Team lunch", start: (12, 0), end: (13, 0), type: "social", tags: ["work"],
                location: "Cafe De Ville"),
            Spec(day: -3, title: "Gym", start: (18, 0), end: (19, 0), type: "personal", tags: ["health"]),
            // seedDay - 2
            standup(-2),
            Spec(
                day: -2, title: "Dentist appointment", start: (8, 15), end: (8, 45), type: "appointment",
                tags: ["health"],
                location: "Tandartspraktijk Centrum", reminders: [reminder(60)]
            ),
            pickup(-2),
            Spec(
                day: -2, title: "Piano lesson Emma", start: (16, 30), end: (17, 15), type: "appointment",
                tags: ["family"]),
            // seedDay - 1
            standup(-1),
            Spec(
                day: -1, title: "Sprint planning", start: (10, 0), end: (11, 30), type: "meeting", tags: ["work"],
                description: "Plan the next sprint"
            ),
            pickup(-1),
            Spec(
                day: -1, title: "Dinner at grandma's", start: (18, 0), end: (20, 30), type: "social", tags: ["family"]),
            // seedDay
            standup(0),
            Spec(
                day: 0, title: "Lunch with Noor", start: (12, 30), end: (13, 30), type: "social",
                location: "Bakkerij Vlaar"),
            Spec(
                day: 0, title: "Design review", start: (14, 0), end: (15, 0), type: "meeting",
                tags: ["work", "design"],
                location: "Room 2", color: "#4f46e5", description: "Review the new onboarding flow",
                attendees: [person("Sanne de Vries", "sanne@example.com"), person("Tom Bakker", "tom@example.com")],
                reminders: [reminder(10)], updated: true
            ),
            pickup(0),
            Spec(
                day: 0, title: "Book club", start: (19, 30), end: (21, 0), type: "social", status: "tentative",
                tags: ["personal"],
                location: "Library cafe"
            ),
            // seedDay + 1
            Spec(day: 1, title: "Yoga", start: (7, 0), end: (8, 0), type: "personal", tags: ["health"]),
            standup(1),
            Spec(
                day: 1, title: "Quarterly planning", start: (13, 0), end: (16, 0), type: "meeting", status: "cancelled",
                tags: ["work"]),
            pickup(1),
            // seedDay + 2
            Spec(
                day: 2, title: "Team offsite", start: (0, 0), end: (0, 0), endDay: 1, allDay: true, type: "event",
                tags: ["work"],
                location: "Utrecht"
            ),
            standup(2),
            Spec(
                day: 2, title: "Late deploy window", start: (22, 30), end: (0, 30), endDay: 1, type: "maintenance",
                tags: ["work"],
                color: "#dc2626", description: "Runs past local midnight"
            ),
            // seedDay + 3
            standup(3),
            Spec(day: 3, title: "Farmers market", start: (10, 0), end: (11, 0), type: "personal"),
            Spec(
                day: 3, title: "Dinner reservation", start: (19, 0), end: (21, 0), type: "social", tags: ["family"],
                location: "Restaurant Ciel", reminders: [reminder(120, "email")]
            ),
            Spec(
                day: 3, title: "Bins out", start: (20, 0), end: (20, 5), type: "reminder", tags: ["home"],
                recurrence: "FREQ=WEEKLY"
            ),
        ]
    }

    static func events(seedDay: String, timeZone: TimeZone) -> [EightAllsEvent] {
        guard let calendar = SeedCalendar(seedDay: seedDay, timeZone: timeZone) else { return [] }
        let seedDays = calendar.seedDays

        // created_at: a week before the seed day, from 03:03:39.084911 UTC on, minutes apart.
        let createdBase =
            Int64(seedDays - 7) * Civil.microsPerDay + Int64(3 * 3600 + 3 * 60 + 39) * Civil.microsPerSecond
        // updated_at: the day before the seed day, 16:20:05.512 UTC.
        let updated =
            Int64(seedDays - 1) * Civil.microsPerDay + Int64(16 * 3600 + 20 * 60 + 5) * Civil.microsPerSecond
            + 512_000
        var rng = SeedRandom(seed: "8alls|\(seedDay)")
        return specs.enumerated().map { index, spec in
            let id = rng.uuid()
            let fraction: Int64 = index == 0 ? 84_911 : (index % 7 == 3 ? 0 : Int64(rng.next() % 1_000_000))
            let created = createdBase + Int64(index) * 37 * 60 * Civil.microsPerSecond + fraction
            return EightAllsEvent(
                id: id,
                title: spec.title,
                description: spec.description,
                startTime: calendar.utcMicros(spec.day, spec.start),
                endTime: calendar.utcMicros(spec.day + spec.endDay, spec.end),
                allDay: spec.allDay,
                location: spec.location,
                recurrenceRule: spec.recurrence,
                status: spec.status,
                eventType: spec.type,
                color: spec.color,
                tags: spec.tags,
                attendees: spec.attendees,
                reminders: spec.reminders,
                createdAt: created,
                updatedAt: spec.updated ? updated : nil
            )
        }
    }
}
