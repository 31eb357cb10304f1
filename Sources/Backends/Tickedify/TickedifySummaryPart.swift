import Foundation
import Model
import OpenAPIKit

/// Tickedify's part of `/v1/summary`: today's plan and tasks.
/// - `tasks_planned`: task slots in today's plan (Tickedify drops completed ones from it);
///   `tasks_done`: tasks completed today.
/// - `plan`: every slot of the plan (tasks, blocks, breaks); `tasks`: their titles.
/// - `next_task_title`, `next_task_id` (Tickedify's task id, to tick it off),
///   `next_task_start` (the slot's hour on the summary's day, with the zone's offset): the first
///   task slot of the day's plan, by hour then position, whose hour has not ended yet — a slot
///   of the current hour is still next. Null when there is none. `next_task` holds the same as
///   `{title, task_id, start}` (nulls when there is none), for `json_attributes_path`: Home
///   Assistant's sensor gets the id as its `task_id` attribute.
public struct TickedifySummaryPart: SummaryPart {
    struct Plan: Encodable {
        struct Item: Encodable {
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

    struct Tasks: Encodable {
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

    public var sections: [SummarySection] {
        [
            SummarySection(name: "plan", operation: TickedifyDailyPlanOperation().name, arguments: ["date": .date]),
            SummarySection(
                name: "completed", operation: TickedifyCompletedOperation().name, arguments: ["date": .date]),
        ]
    }

    public var keySchemas: [String: JSONSchema] {
        [
            "tasks_planned": .integer(nullable: true),
            "tasks_done": .integer(nullable: true),
            "plan": .closedObject([
                "count": .integer, "items": .array(items: TickedifySchemas.summaryPlanItem.reference),
            ]),
            "next_task_title": .string(nullable: true),
            "next_task_id": .string(nullable: true),
            "next_task_start": .string(format: .dateTime, nullable: true),
            "next_task": .closedObject([
                "title": .string(nullable: true), "task_id": .string(nullable: true),
                "start": .string(format: .dateTime, nullable: true),
            ]),
            "tasks": .closedObject([
                "planned": .integer(nullable: true),
                "done": .integer(nullable: true),
                "open_titles": .array(items: .string),
                "done_titles": .array(items: .string),
            ]),
        ]
    }

    public var keyComponents: [SchemaComponent] { [TickedifySchemas.summaryPlanItem] }

    public func summarize(_ input: SummaryInput) -> SummaryValues {
        let planItems = input.decode([PlanItem].self, "plan")
        let completed = input.decode([TaskItem].self, "completed")
        let tasks = planItems?.filter { $0.kind == .task }
        let plan = Plan(
            count: planItems?.count ?? 0,
            items: (planItems ?? []).map {
                .init(title: $0.title, hour: $0.hour, kind: $0.kind, durationMinutes: $0.durationMinutes)
            })
        let summary = Tasks(
            planned: tasks?.count, done: completed?.count, openTitles: (tasks ?? []).map(\.title),
            doneTitles: (completed ?? []).map(\.title))
        let next = Self.nextTask(planItems ?? [], on: input.date, zone: input.zone, now: input.now)
        let title: JSONValue = next.map { .string($0.item.title) } ?? .null
        let id: JSONValue = next?.item.taskID.map(JSONValue.string) ?? .null
        let start: JSONValue = next.map { .string(LenientDate.format($0.start, in: input.zone)) } ?? .null
        return SummaryValues(
            values: [
                "tasks_planned": tasks.map { .number(Double($0.count)) } ?? .null,
                "tasks_done": completed.map { .number(Double($0.count)) } ?? .null,
                "plan": (try? JSONValue(encoding: plan)) ?? .null,
                "tasks": (try? JSONValue(encoding: summary)) ?? .null,
                "next_task_title": title, "next_task_id": id, "next_task_start": start,
                "next_task": .object(["title": title, "task_id": id, "start": start]),
            ], changesAt: next?.end)
    }

    /// The first task slot of `day`'s plan (by hour, then position) whose hour ends after `now`,
    /// with the start and end of that hour; nil when there is none.
    static func nextTask(_ items: [PlanItem], on day: LocalDate, zone: TimeZone, now: Date)
        -> (item: PlanItem, start: Date, end: Date)?
    {
        items.filter { $0.kind == .task && (0...23).contains($0.hour) }
            .sorted { ($0.hour, $0.position) < ($1.hour, $1.position) }
            .lazy.map { item in
                let start = day.date(hour: item.hour, minute: 0, in: zone)
                return (item: item, start: start, end: start.addingTimeInterval(3600))
            }
            .first { $0.end > now }
    }
}
