import Foundation
import Model

/// Tickedify's Dutch, partly camelCase rows to the unified types.
enum TickedifyNormalisation {
    static func planItems(_ value: JSONValue) throws -> [PlanItem] {
        guard let rows = LenientList.items(in: value, keys: ["planned_tasks", "planning", "items", "data"]) else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend, message: "Tickedify sent a plan that is not a list")
        }
        return rows.compactMap { row -> PlanItem? in
            guard let fields = LenientFields(row), let id = fields.string("id") else { return nil }
            let kind: PlanItem.Kind =
                switch fields.string("type")?.lowercased() {
                case "geblokkeerd", "blocked": .blocked
                case "pauze", "break": .break
                default: .task
                }
            return PlanItem(
                id: id, taskID: fields.string("actieId", "actie_id", "task_id"),
                title: fields.string("naam", "actieTekst", "title", "tekst")
                    ?? (kind == .break ? "Pauze" : "Geblokkeerd"),
                hour: fields.int("uur", "hour") ?? 0, position: fields.int("positie", "position") ?? 0, kind: kind,
                durationMinutes: fields.int("duurMinuten", "duur_minuten", "duration_minutes", "actieDuur"),
                projectID: fields.string("projectId", "project_id"), contextID: fields.string("contextId", "context_id")
            )
        }.sorted { ($0.hour, $0.position) < ($1.hour, $1.position) }
    }

    static func tasks(_ value: JSONValue, list: String, zone: TimeZone) throws -> [TaskItem] {
        guard let rows = LenientList.items(in: value, keys: ["tasks", "items", "data"]) else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend, message: "Tickedify sent a list that is not a list")
        }
        return rows.compactMap { row -> TaskItem? in
            guard let fields = LenientFields(row), let id = fields.string("id") else { return nil }
            let priority: TaskItem.Priority? =
                switch fields.string("prioriteit", "priority")?.lowercased() {
                case "hoog", "high": .high
                case "gemiddeld", "medium": .medium
                case "laag", "low": .low
                default: nil
                }
            return TaskItem(
                id: id, title: fields.string("tekst", "title", "naam") ?? "",
                list: fields.string("lijst", "list") ?? list, priority: priority,
                appearsOn: fields.string("verschijndatum", "appears_on").flatMap(LocalDate.init(leadingDayOf:))?
                    .description,
                durationMinutes: fields.int("duur", "duration_minutes"),
                projectID: fields.string("projectId", "project_id"),
                contextID: fields.string("contextId", "context_id"),
                recurrence: fields.string("herhalingType", "herhaling_type", "recurrence"),
                createdAt: fields.string("aangemaakt", "created_at").flatMap { LenientDate.parse($0) }.map {
                    LenientDate.format($0, in: zone)
                },
                completedAt: fields.string("afgewerkt", "completed_at").flatMap { LenientDate.parse($0) }.map {
                    LenientDate.format($0, in: zone)
                }
            )
        }
    }

    static func counts(_ value: JSONValue) throws -> TaskCounts {
        guard let fields = LenientFields(value), let inbox = fields.int("inbox") else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend, message: "Tickedify sent counts without an inbox figure"
            )
        }
        return TaskCounts(
            inbox: inbox, acties: fields.int("acties") ?? 0, opvolgen: fields.int("opvolgen") ?? 0,
            projecten: fields.int("projecten") ?? 0, uitgesteld: fields.int("uitgesteld") ?? 0
        )
    }
}
