import Foundation
import Hummingbird
import Model

/// Completing, changing and reopening a task, and moving a planning item, as `server.js`
/// (package 0.21.129) and `database.js` do it. Completed tasks move to `taken_archief`
/// (`TickedifyTask.archived`); the planning items of a task go with its `taken` row (the foreign
/// key's ON DELETE CASCADE).
extension TickedifyBackend {
    /// `PUT /api/taak/:id` with a session (without one the server crashes, see `dispatch`).
    /// `completedViaCheckbox` is split off the body; with it and `lijst: "afgewerkt"` the task is
    /// archived, otherwise `updateTask` sets every key sent as a column.
    func taakPut(_ call: Call, _ session: TickedifySession) -> Response {
        let id = call.params["id"] ?? ""
        var fields = call.body.objectValue.map { Dictionary($0.fields, uniquingKeysWith: { _, last in last }) } ?? [:]
        let viaCheckbox = Self.truthy(fields.removeValue(forKey: "completedViaCheckbox") ?? .null)
        if viaCheckbox, fields["lijst"] == .string("afgewerkt") {
            return complete(id: id, afgewerkt: fields["afgewerkt"] ?? .null, call: call, session: session)
        }
        let updated: Bool = store.write { data in
            guard
                let index = data.tasks.firstIndex(where: { $0.id == id && $0.userId == session.userId && !$0.archived })
            else { return false }
            guard let row = Self.updated(data.tasks[index], with: fields) else { return false }
            data.tasks[index] = row
            return true
        }
        // updateTask returns false on a missing row and on any SQL error (an unknown column).
        guard updated, !fields.isEmpty else {
            return TickedifyHTTP.error("Taak niet gevonden", status: 404, request: call.request)
        }
        return TickedifyHTTP.json(.object(["success": .bool(true)]), request: call.request)
    }

    /// The completion branch: `getTask`, the state checks, then the archive "transaction" (the
    /// row and its subtasks to the archive with `afgewerkt` = the server's now and
    /// `herhaling_actief` false, the live row deleted). The real server then tries to make a
    /// recurring task's next occurrence, but calls `createRecurringTask` with one argument of
    /// three, which makes nothing: no next occurrence, no `new_recurring_taak_id` (recorded:
    /// `Tests/Fixtures/recordings/tickedify`, 048-050). The web app makes it first itself,
    /// through `POST /api/taak/recurring` (`taakRecurring`).
    private func complete(id: String, afgewerkt: JSONValue, call: Call, session: TickedifySession) -> Response {
        enum Outcome {
            case notFound
            case completedAlready(String)
            case missingTimestamp
            case archived
        }
        let now = TickedifyTime.nowMs()
        let outcome: Outcome = store.write { data in
            guard
                let index = data.tasks.firstIndex(where: { $0.id == id && $0.userId == session.userId && !$0.archived })
            else { return .notFound }
            let task = data.tasks[index]
            if task.lijst == "afgewerkt" { return .completedAlready(task.lijst) }
            guard Self.truthy(afgewerkt) else { return .missingTimestamp }
            var archived = task
            archived.archived = true
            // The row keeps its list: the archive is a copy of the `taken` row (recorded: 039).
            archived.afgewerkt = now
            archived.archivedAt = now
            archived.herhalingActief = false
            data.tasks[index] = archived
            // DELETE FROM taken: ON DELETE CASCADE removes its planning items, on every day.
            data.planning.removeAll { $0.actieId == id }
            return .archived
        }
        switch outcome {
        case .notFound:
            return TickedifyHTTP.json(
                .object([
                    "success": .bool(false), "error": .string("Task not found"), "code": .string("TASK_NOT_FOUND"),
                ]),
                status: 404, request: call.request)
        case .completedAlready(let state):
            return TickedifyHTTP.json(
                .object([
                    "success": .bool(false), "error": .string("Task is already completed"),
                    "code": .string("INVALID_TASK_STATE"), "currentState": .string(state),
                ]), status: 400, request: call.request)
        case .missingTimestamp:
            return TickedifyHTTP.json(
                .object([
                    "success": .bool(false), "error": .string("Completion timestamp (afgewerkt) is required"),
                    "code": .string("VALIDATION_ERROR"),
                ]), status: 400, request: call.request)
        case .archived:
            let answer: JSONObject = [
                "success": .bool(true), "message": .string("Taak afgewerkt en gearchiveerd"),
                "archived_taak_id": .string(id),
            ]
            return TickedifyHTTP.json(.object(answer), request: call.request)
        }
    }

    /// `POST /api/taak/recurring {originalTask, nextDate}`: what the web app calls before it
    /// completes a recurring task (recorded: 052-062). A new row in `taken` on `nextDate`, from
    /// the camelCase fields of `originalTask` only (`tekst`, `lijst` (default `acties`), `duur`
    /// (null: 0), `type` (default `actie`), `opmerkingen`, `prioriteit`, `projectId`,
    /// `contextId`, `herhalingType`, `herhalingWaarde`), recurring; `top_prioriteit` is not
    /// copied, and `originalTask.id` is not checked against the account. Its id is a planning-
    /// style one (9 random base-36 characters, then the time in base 36), not `task_…`. Every
    /// failure is a 500: without a session (it does not crash here), without `originalTask`,
    /// and with a `nextDate` that is not a date (then with "- createRecurringTask failed").
    func taakRecurring(_ call: Call) -> Response {
        let refused = "Fout bij aanmaken herhalende taak"
        guard let session = call.session, let original = call.body["originalTask"]?.objectValue else {
            return TickedifyHTTP.error(refused, status: 500, request: call.request)
        }
        guard let nextDate = call.body["nextDate"]?.stringValue, let day = LocalDate(String(nextDate.prefix(10))) else {
            return TickedifyHTTP.error(refused + " - createRecurringTask failed", status: 500, request: call.request)
        }
        let now = TickedifyTime.nowMs()
        func text(_ key: String) -> String? { original[key]?.stringValue }
        let task = TickedifyTask(
            id: TickedifyTime.newPlanningID(now: now), tekst: text("tekst") ?? "", aangemaakt: now,
            lijst: text("lijst") ?? "acties", verschijndatum: day.description,
            duur: original["duur"]?.numberValue.map { Int($0) } ?? 0, type: text("type") ?? "actie",
            afgewerkt: nil, userId: session.userId, opmerkingen: text("opmerkingen"), topPrioriteit: nil,
            prioriteitDatum: nil, prioriteit: text("prioriteit"), verwijderdOp: nil, definitiefVerwijderenOp: nil,
            projectId: text("projectId"), contextId: text("contextId"), herhalingType: text("herhalingType"),
            herhalingWaarde: original["herhalingWaarde"]?.numberValue.map { Int($0) }, herhalingActief: true)
        store.write { data in data.tasks.append(task) }
        return TickedifyHTTP.json(.object(["success": .bool(true), "taskId": .string(task.id)]), request: call.request)
    }

    /// `POST /api/taak/:id/unarchive`: the archived row goes back into `taken` with the same id,
    /// in the inbox, not completed, not recurring (completion set `herhaling_actief` false). Its
    /// planning items are gone for good.
    func taakUnarchive(_ call: Call) -> Response {
        guard let session = call.session else {
            return TickedifyHTTP.error("Niet ingelogd", status: 401, request: call.request)
        }
        let id = call.params["id"] ?? ""
        let error: (status: Int, message: String)? = store.write { data in
            guard
                let index = data.tasks.firstIndex(where: { $0.id == id && $0.userId == session.userId && $0.archived })
            else { return (404, "Taak niet gevonden in archief") }
            if data.tasks.contains(where: { $0.id == id && !$0.archived }) {
                return (500, "Fout bij terugzetten van taak")
            }
            data.tasks[index].archived = false
            data.tasks[index].lijst = "inbox"
            data.tasks[index].afgewerkt = nil
            data.tasks[index].archivedAt = nil
            data.tasks[index].herhalingActief = false
            return nil
        }
        if let error { return TickedifyHTTP.error(error.message, status: error.status, request: call.request) }
        return TickedifyHTTP.json(
            .object([
                "success": .bool(true), "message": .string("Taak teruggezet naar inbox"),
                "restored_task_id": .string(id), "restored_subtaken_count": .int(0),
            ]), request: call.request)
    }

    /// `reorderDagelijksePlanning`: the item leaves its hour (the positions after it move up) and
    /// goes to `targetUur` at `targetPosition` (the positions from there move down), or at the
    /// end of that hour when `targetPosition` is null or missing. Any failure is a 404. There is
    /// no transaction: with a missing or unreadable `targetUur` (or `targetPosition`) the other
    /// items of the old hour have already moved up when the 404 comes (recorded: 068-070).
    func planningReorder(_ call: Call, _ session: TickedifySession) -> Response {
        let id = call.params["id"] ?? ""
        let target = Self.pgInteger(call.body["targetUur"])
        let rawPosition = call.body["targetPosition"] ?? .null
        let position = rawPosition == .null ? nil : Self.pgInteger(rawPosition)
        let moved: Bool = store.write { data in
            guard let index = data.planning.firstIndex(where: { $0.id == id && $0.userId == session.userId })
            else { return false }
            let item = data.planning[index]
            func sameHour(_ other: TickedifyPlanItem, _ hour: Int) -> Bool {
                other.id != id && other.userId == session.userId && other.datum == item.datum && other.uur == hour
            }
            for i in data.planning.indices
            where sameHour(data.planning[i], item.uur) && data.planning[i].positie > item.positie {
                data.planning[i].positie -= 1
            }
            guard let uur = target, (0...23).contains(uur), rawPosition == .null || position != nil else {
                return false
            }
            let newPosition: Int
            if let position {
                for i in data.planning.indices
                where sameHour(data.planning[i], uur) && data.planning[i].positie >= position {
                    data.planning[i].positie += 1
                }
                newPosition = position
            } else {
                newPosition = (data.planning.filter { sameHour($0, uur) }.map(\.positie).max() ?? -1) + 1
            }
            data.planning[index].uur = uur
            data.planning[index].positie = newPosition
            return true
        }
        guard moved else {
            return TickedifyHTTP.error("Planning item niet gevonden", status: 404, request: call.request)
        }
        return TickedifyHTTP.json(.object(["success": .bool(true)]), request: call.request)
    }

    /// `updateTask`'s `UPDATE taken SET <key> = $n`: every key is a column (projectId,
    /// contextId and the herhaling* names renamed); nil when the UPDATE would fail (a key that is
    /// not a column, a value the column refuses).
    static func updated(_ task: TickedifyTask, with fields: [String: JSONValue]) -> TickedifyTask? {
        var row = task
        func text(_ value: JSONValue) -> String?? { value == .null ? .some(nil) : pgText(value).map { .some($0) } }
        for (key, value) in fields {
            switch key {
            case "tekst":
                guard let v = pgText(value) else { return nil }
                row.tekst = v
            case "lijst":
                guard let v = pgText(value) else { return nil }
                row.lijst = v
            case "opmerkingen":
                guard let v = text(value) else { return nil }
                row.opmerkingen = v
            case "type":
                guard let v = text(value) else { return nil }
                row.type = v
            case "projectId", "project_id":
                guard let v = text(value) else { return nil }
                row.projectId = v
            case "contextId", "context_id":
                guard let v = text(value) else { return nil }
                row.contextId = v
            case "herhalingType", "herhaling_type":
                guard let v = text(value) else { return nil }
                row.herhalingType = v
            case "prioriteit":
                guard let v = text(value) else { return nil }
                row.prioriteit = v
            case "verschijndatum":
                if value == .null {
                    row.verschijndatum = nil
                } else {
                    guard let v = pgText(value).flatMap(TickedifyTime.pgDate) else { return nil }
                    row.verschijndatum = v
                }
            case "duur":
                if value == .null {
                    row.duur = nil
                } else {
                    guard let v = pgInteger(value) else { return nil }
                    row.duur = v
                }
            case "herhalingWaarde", "herhaling_waarde":
                if value == .null {
                    row.herhalingWaarde = nil
                } else {
                    guard let v = pgInteger(value) else { return nil }
                    row.herhalingWaarde = v
                }
            case "herhalingActief", "herhaling_actief":
                guard case .bool(let v) = value else { return nil }
                row.herhalingActief = v
            case "afgewerkt":
                if value == .null {
                    row.afgewerkt = nil
                } else {
                    guard let text = pgText(value), let date = LenientDate.parse(text) else { return nil }
                    row.afgewerkt = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
                }
            default:
                return nil
            }
        }
        return row
    }
}
