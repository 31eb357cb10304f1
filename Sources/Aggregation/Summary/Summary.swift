import Foundation
import Model

/// `/v1/summary`: the day as flat scalars for Home Assistant's `value_template`, and the lists
/// behind them under named objects for `json_attributes_path`. Every key is always present
/// (null when its backend is not configured or has no data), so templates never break.
public struct Summary: Encodable, Sendable {
    public struct Events: Encodable, Sendable {
        public struct Item: Encodable, Sendable {
            var title: String
            var start: String
            var end: String
            var allDay: Bool
            @Nullable var location: String?
            var status: String
            enum CodingKeys: String, CodingKey {
                case title, start, end
                case allDay = "all_day"
                case location, status
            }
        }
        var count: Int
        var items: [Item]
    }

    public struct Plan: Encodable, Sendable {
        public struct Item: Encodable, Sendable {
            var title: String
            var hour: Int
            var kind: PlanItem.Kind
            @Nullable var durationMinutes: Int?
            enum CodingKeys: String, CodingKey {
                case title, hour, kind
                case durationMinutes = "duration_minutes"
            }
        }
        var count: Int
        var items: [Item]
    }

    public struct Tasks: Encodable, Sendable {
        @Nullable var planned: Int?
        @Nullable var done: Int?
        var openTitles: [String]
        var doneTitles: [String]
        enum CodingKeys: String, CodingKey {
            case planned, done
            case openTitles = "open_titles"
            case doneTitles = "done_titles"
        }
    }

    public struct Diensten: Encodable, Sendable {
        public struct Item: Encodable, Sendable {
            var start: String
            var end: String
            var club: String
            @Nullable var team: String?
            var role: String
            var openSpots: Int
            @Nullable var location: String?
            enum CodingKeys: String, CodingKey {
                case start, end, club, team, role
                case openSpots = "open_spots"
                case location
            }
        }
        var count: Int
        var items: [Item]
    }

    public struct Nutrition: Encodable, Sendable {
        @Nullable var calories: Int?
        @Nullable var goalCalories: Int?
        @Nullable var remainingCalories: Int?
        @Nullable var proteinG: Double?
        @Nullable var carbsG: Double?
        @Nullable var fatG: Double?
        enum CodingKeys: String, CodingKey {
            case calories
            case goalCalories = "goal_calories"
            case remainingCalories = "remaining_calories"
            case proteinG = "protein_g"
            case carbsG = "carbs_g"
            case fatG = "fat_g"
        }
    }

    var date: String
    var timezone: String
    @Nullable var tasksPlanned: Int?
    @Nullable var tasksDone: Int?
    @Nullable var nextEventTitle: String?
    @Nullable var nextEventStart: String?
    @Nullable var nextDienstStart: String?
    @Nullable var nextDienstClub: String?
    @Nullable var kcalToday: Int?
    @Nullable var kcalRemaining: Int?
    var stale: Bool
    var complete: Bool
    var ageSeconds: Int
    var events: Events
    var plan: Plan
    var tasks: Tasks
    var diensten: Diensten
    var nutrition: Nutrition
    var sections: [String: SectionReport]
    /// When the clock alone changes this summary: the next event or dienst starts (and stops
    /// being "next"). Not part of the answer.
    var changesAt: Date?

    enum CodingKeys: String, CodingKey {
        case date, timezone
        case tasksPlanned = "tasks_planned"
        case tasksDone = "tasks_done"
        case nextEventTitle = "next_event_title"
        case nextEventStart = "next_event_start"
        case nextDienstStart = "next_dienst_start"
        case nextDienstClub = "next_dienst_club"
        case kcalToday = "kcal_today"
        case kcalRemaining = "kcal_remaining"
        case stale, complete
        case ageSeconds = "age_seconds"
        case events, plan, tasks, diensten, nutrition, sections
    }

}

extension Summary {
    /// Derives the summary from an answer of `SummaryService.route` at `now`.
    /// - `tasks_planned`: task slots in today's plan (Tickedify drops completed ones from it);
    ///   `tasks_done`: tasks completed today.
    /// - `next_event_*`: the first event of the coming week that has not started yet and is
    ///   not cancelled (so today's all-day events, which started at midnight, are not "next");
    ///   `next_dienst_*`: the first dienst that has not started.
    /// - `kcal_remaining`: FitIQ's figure, or goal minus eaten when it gives none.
    init(answer: AggregateAnswer, date: LocalDate, zone: TimeZone, now: Date) {
        func decode<T: Decodable>(_ type: T.Type, _ section: String) -> T? {
            answer.sectionBodies[section].flatMap { try? JSONCoding.decoder.decode(T.self, from: $0) }
        }
        let planItems = decode([PlanItem].self, "plan")
        let completed = decode([TaskItem].self, "completed")
        let week = decode([Event].self, "events")
        let diensten = decode([Dienst].self, "diensten")
        let nutrition = decode(NutritionSummary.self, "nutrition")

        let day = date.interval(in: zone)
        let todays = (week ?? []).filter { event in
            guard let start = LenientDate.parse(event.start), let end = LenientDate.parse(event.end) else {
                return false
            }
            return start < day.end && (end > day.start || (start == end && start >= day.start))
        }
        let upcoming = (week ?? []).filter { event in
            guard event.status != "cancelled", let start = LenientDate.parse(event.start) else { return false }
            return start >= now
        }.sorted { (LenientDate.parse($0.start) ?? .distantFuture) < (LenientDate.parse($1.start) ?? .distantFuture) }
        let next = upcoming.first
        let futureDiensten = (diensten ?? []).filter { (LenientDate.parse($0.start) ?? .distantPast) > now }
            .sorted {
                (LenientDate.parse($0.start) ?? .distantFuture) < (LenientDate.parse($1.start) ?? .distantFuture)
            }
        let tasks = planItems?.filter { $0.kind == .task }

        self.date = date.description
        self.timezone = zone.identifier
        self.tasksPlanned = tasks?.count
        self.tasksDone = completed?.count
        self.nextEventTitle = next?.title
        self.nextEventStart = next?.start
        self.nextDienstStart = futureDiensten.first?.start
        self.nextDienstClub = futureDiensten.first?.tenant
        self.kcalToday = nutrition?.calories
        let remaining = nutrition.flatMap { day in day.remainingCalories ?? day.goalCalories.map { $0 - day.calories } }
        self.kcalRemaining = remaining
        self.stale = answer.stale
        self.complete = answer.complete
        self.ageSeconds = answer.ageSeconds
        self.events = Events(
            count: todays.count,
            items: todays.map {
                .init(
                    title: $0.title, start: $0.start, end: $0.end, allDay: $0.allDay, location: $0.location,
                    status: $0.status)
            })
        self.plan = Plan(
            count: planItems?.count ?? 0,
            items: (planItems ?? []).map {
                .init(title: $0.title, hour: $0.hour, kind: $0.kind, durationMinutes: $0.durationMinutes)
            })
        self.tasks = Tasks(
            planned: tasks?.count, done: completed?.count,
            openTitles: (tasks ?? []).map(\.title), doneTitles: (completed ?? []).map(\.title)
        )
        self.diensten = Diensten(
            count: futureDiensten.count,
            items: futureDiensten.prefix(10).map {
                .init(
                    start: $0.start, end: $0.end, club: $0.tenant, team: $0.team?.name, role: $0.role,
                    openSpots: $0.openSpots, location: $0.location)
            })
        self.nutrition = Nutrition(
            calories: nutrition?.calories, goalCalories: nutrition?.goalCalories, remainingCalories: remaining,
            proteinG: nutrition?.proteinG, carbsG: nutrition?.carbsG, fatG: nutrition?.fatG
        )
        self.sections = answer.sections
        self.changesAt = [next?.start, futureDiensten.first?.start].compactMap { $0.flatMap { LenientDate.parse($0) } }
            .min()
    }
}
