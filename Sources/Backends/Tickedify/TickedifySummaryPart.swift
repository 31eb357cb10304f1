import Foundation
import Model
import OpenAPIKit

/// Tickedify's part of `/v1/summary`: today's plan and tasks.
/// - `tasks_planned`: task slots in today's plan (Tickedify drops completed ones from it);
///   `tasks_done`: tasks completed today.
/// - `plan`: every slot of the plan (tasks, blocks, breaks); `tasks`: their titles.
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
        return SummaryValues(values: [
            "tasks_planned": tasks.map { .number(Double($0.count)) } ?? .null,
            "tasks_done": completed.map { .number(Double($0.count)) } ?? .null,
            "plan": (try? JSONValue(encoding: plan)) ?? .null,
            "tasks": (try? JSONValue(encoding: summary)) ?? .null,
        ])
    }
}
