import Foundation
import Model
import NIOHTTP1

/// Completing and reopening a Tickedify task, and moving or removing a slot of the daily plan
/// (see docs/backends/tickedify.md, "Completing, reopening and replanning tasks"). Each is one
/// call sent through `TickedifyClient.write` (a session proven within the trust window or
/// checked just before: without one, `PUT /api/taak/:id` and the planning routes crash the
/// real server), queued behind the account's other writes (`TickedifyClient.serialised`),
/// never retried. The pure parts — the ids it accepts, the bodies it sends, what Tickedify's
/// answers mean — are separate functions, tested without sockets.
public enum TickedifyTaskWrites {
    /// A completed task: its id, when it was completed (the time sent; Tickedify stores its own
    /// "now" of the same moment), and for a recurring one the next occurrence daygate made.
    public struct Completion: Sendable, Equatable {
        public var id: String
        public var completedAt: String
        public var nextTaskID: String?
        public var nextDate: LocalDate?
    }

    // MARK: - Calls

    /// Completes a task as Tickedify's web app does. For a recurring task (`herhalingActief`
    /// with a `herhalingType`, found in the `acties` list) the web app makes the next
    /// occurrence itself, before completing: it computes the date (`TickedifyRecurrence`) and
    /// sends `POST /api/taak/recurring {originalTask, nextDate}` with the task as the list
    /// gave it. The server's own completion makes none (it calls its helper with one argument
    /// of three; recorded in `Tests/Fixtures/recordings/tickedify`, 048-050), so completing
    /// without that step loses the chore. A pattern daygate cannot compute is refused (422)
    /// before anything is sent. Then `PUT /api/taak/:id {"afgewerkt", "completedViaCheckbox":
    /// true, "lijst": "afgewerkt"}`: Tickedify archives the task and deletes its planning items.
    public static func complete(id: String, context: OperationContext) async throws -> Completion {
        let path = "/api/taak/\(try pathID(id))"
        var next: (id: String, date: LocalDate)?
        if let task = try await actionsListRow(id: id, context: context), let pattern = recurrence(of: task) {
            let date = try nextDate(of: task, pattern: pattern, today: context.clock.today)
            let body: JSONValue = .object(["originalTask": task, "nextDate": .string(date.description)])
            let made = try await send(.POST, "/api/taak/recurring", body: body, context: context) { _ in nil }
            next = (try recurringTaskID(json(made.body)), date)
        }
        let completedAt = timestamp(context.now)
        let response = try await send(.PUT, path, body: completionBody(completedAt), context: context) { response in
            completionRefusal(status: response.status, body: json(response.body), id: id)
        }
        _ = try nextTaskID(json(response.body))
        return Completion(id: id, completedAt: completedAt, nextTaskID: next?.id, nextDate: next?.date)
    }

    /// The task's row as `GET /api/lijst/acties` gives it (camelCase, as the web app sends it
    /// on), or nil when it is not there (a task of another list: not recurring).
    /// A failure here comes before anything was written: it says so (`mayHaveArrived` false),
    /// so that the same `Idempotency-Key` may be sent again.
    static func actionsListRow(id: String, context: OperationContext) async throws -> JSONValue? {
        let client = try TickedifyClient.make(context)
        do {
            let list = try await client.get("/api/lijst/acties", session: .provenFirst)
            return list.arrayValue?.first { $0["id"]?.stringValue == id }
        } catch var error as BackendError {
            error.mayHaveArrived = false
            throw error
        }
    }

    /// The pattern of a recurring row, nil for a one-off.
    public static func recurrence(of task: JSONValue) -> String? {
        guard task["herhalingActief"]?.boolValue == true, let pattern = task["herhalingType"]?.stringValue,
            !pattern.isEmpty
        else { return nil }
        return pattern
    }

    /// The next occurrence's day, from the task's own day (`verschijndatum`, else today), as
    /// the web app computes it; a pattern it cannot compute is a 422 naming the pattern.
    public static func nextDate(of task: JSONValue, pattern: String, today: LocalDate) throws(WriteRefusal)
        -> LocalDate
    {
        let from = task["verschijndatum"]?.stringValue.flatMap { LocalDate(String($0.prefix(10))) } ?? today
        do {
            return try TickedifyRecurrence.nextDate(for: pattern, from: from, today: today)
        } catch {
            throw WriteRefusal(
                status: 422, code: "recurrence_not_computable",
                message:
                    "the task repeats as \"\(pattern)\", whose next date daygate cannot compute (\(error)); nothing was sent, so the task is still open: complete it in Tickedify's web app"
            )
        }
    }

    /// The id in `POST /api/taak/recurring`'s answer (`{"success": true, "taskId"}`).
    public static func recurringTaskID(_ body: JSONValue?) throws -> String {
        guard body?["success"]?.boolValue == true, let id = body?["taskId"]?.stringValue, !id.isEmpty else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend,
                message: "Tickedify answered the next occurrence of a recurring task without its id")
        }
        return id
    }

    /// `POST /api/taak/:id/unarchive`: the task comes back into the inbox (always the inbox, not
    /// its old list), not recurring, and without its planning items.
    public static func reopen(id: String, context: OperationContext) async throws {
        try await send(.POST, "/api/taak/\(try pathID(id))/unarchive", context: context) { response in
            response.status == 404
                ? .notFound(
                    "task \(id) is not among Tickedify's completed tasks (never completed, reopened already, or deleted)"
                )
                : nil
        }
    }

    /// `PUT /api/dagelijkse-planning/:id/reorder {"targetUur", "targetPosition"}`: the slot moves
    /// to `hour`, at `position` there (nil: at the end of that hour); Tickedify shifts the other
    /// slots of the old and the new hour.
    public static func replan(itemID: String, to move: PlanMove, context: OperationContext) async throws {
        try await send(
            .PUT, "/api/dagelijkse-planning/\(try pathID(itemID))/reorder", body: reorderBody(move), context: context
        ) { response in
            response.status == 404 ? .notFound("there is no Tickedify plan item \(itemID)") : nil
        }
    }

    /// `DELETE /api/dagelijkse-planning/:id`: the slot leaves the plan (the task stays open);
    /// Tickedify does not close the gap in that hour's positions. The server deletes any slot
    /// by id, whoever owns it (no owner check; recorded, exchange 075), so daygate first reads
    /// this profile's plan of `day` (`GET /api/dagelijkse-planning/:datum` answers only the
    /// account's own slots) and sends the delete only for a slot that is in it: otherwise a
    /// 404, and nothing is sent.
    public static func remove(itemID: String, day: LocalDate, context: OperationContext) async throws {
        let path = "/api/dagelijkse-planning/\(try pathID(itemID))"
        guard try await planHolds(itemID: itemID, day: day, context: context) else {
            throw WriteRefusal.notFound(
                "there is no slot \(itemID) in your Tickedify plan of \(day) (removed already, of another day: pass ?date=, or not yours); nothing was sent"
            )
        }
        try await send(.DELETE, path, context: context) { response in
            response.status == 404
                ? .notFound("there is no Tickedify plan item \(itemID) (it may have been removed already)") : nil
        }
    }

    /// Whether this profile's plan of `day`, read fresh, has the slot. A failure here comes
    /// before anything was written, and says so (`mayHaveArrived` false).
    static func planHolds(itemID: String, day: LocalDate, context: OperationContext) async throws -> Bool {
        let client = try TickedifyClient.make(context)
        do {
            let plan = try await client.get(
                "/api/dagelijkse-planning/\(QueryString.pathSegment(day.description))", session: .provenFirst)
            return try planHolds(plan, itemID: itemID)
        } catch var error as BackendError {
            error.mayHaveArrived = false
            throw error
        }
    }

    /// Whether a day plan as Tickedify answers it has a slot with this id.
    public static func planHolds(_ plan: JSONValue, itemID: String) throws -> Bool {
        try TickedifyNormalisation.planItems(plan).contains { $0.id == itemID }
    }

    /// The id checked (`checkID`) and escaped for the path.
    static func pathID(_ id: String) throws(WriteRefusal) -> String {
        try checkID(id, name: "id")
        return QueryString.pathSegment(id)
    }

    /// One write: queued behind the account's others, sent with a proven session
    /// (`TickedifyClient.write`), once; `refusal` says what a non-2xx answer means (nil: the
    /// usual upstream error).
    @discardableResult
    static func send(
        _ method: HTTPMethod, _ path: String, body: JSONValue? = nil, context: OperationContext,
        refusal: (UpstreamHTTP.Response) -> WriteRefusal?
    ) async throws -> UpstreamHTTP.Response {
        let client = try TickedifyClient.make(context)
        let bytes = try body.map { try JSONCoding.encode($0) }
        let response = try await client.serialised { try await client.write(method, path, body: bytes) }
        guard response.isSuccess else {
            throw refusal(response) ?? UpstreamHTTP.error(for: response, backend: TickedifyClient.backend)
        }
        return response
    }

    // MARK: - Decisions

    /// Tickedify's ids are `task_<ms>_<random>` for tasks and base-36 text for plan items: an id
    /// with a slash, white space or a control character cannot be one, and is refused before
    /// anything is sent (a slash would reach another route).
    public static func checkID(_ id: String, name: String) throws(WriteRefusal) {
        guard
            !id.unicodeScalars.contains(where: {
                $0 == "/" || $0 == "\\" || $0.properties.isWhitespace || $0.properties.generalCategory == .control
            })
        else {
            throw .badInput("\(name) must not contain a slash, white space or control characters")
        }
    }

    /// `now` as Tickedify's web app sends it: ISO-8601 in UTC with milliseconds.
    public static func timestamp(_ now: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).format(now)
    }

    /// The body that takes the server's completion branch (archive, planning items deleted,
    /// next occurrence made). Without `completedViaCheckbox` the server would only mark the row.
    public static func completionBody(_ completedAt: String) -> JSONValue {
        .object(["afgewerkt": .string(completedAt), "completedViaCheckbox": .bool(true), "lijst": .string("afgewerkt")])
    }

    /// The reorder body. `targetPosition` is always sent, `null` for "at the end": the server
    /// tests `targetPosition !== null`.
    public static func reorderBody(_ move: PlanMove) -> JSONValue {
        .object(["targetUur": .int(move.hour), "targetPosition": move.position.map { .int($0) } ?? .null])
    }

    /// What Tickedify's refusal of a completion means for the client: 404 `TASK_NOT_FOUND`
    /// (the task is not open: completed already — it was moved to the archive — or deleted) is
    /// a 404; 400 `INVALID_TASK_STATE` (its row is marked completed already) a 409
    /// `already_completed`. Nil for any other answer.
    public static func completionRefusal(status: Int, body: JSONValue?, id: String) -> WriteRefusal? {
        switch status {
        case 404:
            return .notFound("task \(id) is not open in Tickedify: it was completed already or deleted")
        case 400 where body?["code"]?.stringValue == "INVALID_TASK_STATE":
            return WriteRefusal(
                status: 409, code: "already_completed", message: "Tickedify says task \(id) is completed already")
        default:
            return nil
        }
    }

    /// The next occurrence a completion says it made (`new_recurring_taak_id`: the real server
    /// never sends it, see `complete`), nil when none; a 2xx without `success: true` is not a
    /// completion.
    public static func nextTaskID(_ body: JSONValue?) throws -> String? {
        guard body?["success"]?.boolValue == true else {
            throw BackendError(
                .badResponse, backend: TickedifyClient.backend,
                message: "Tickedify answered the completion without success: true")
        }
        switch body?["new_recurring_taak_id"] {
        case .string(let next)?: return next
        case .int(let next)?: return String(next)
        default: return nil
        }
    }

    static func json(_ data: Data) -> JSONValue? {
        try? JSONValue(parsing: data)
    }
}

/// Where a plan slot moves: a whole hour (0–23) of the same day, and a position in it (nil: at
/// the end). Tickedify's planned time has no minutes.
public struct PlanMove: Sendable, Equatable {
    public static let fields: Set<String> = ["hour", "position"]

    public var hour: Int
    public var position: Int?

    public init(hour: Int, position: Int?) {
        self.hour = hour
        self.position = position
    }

    /// Reads `{"hour": 0…23, "position"?: integer ≥ 0 or null}`.
    public init(json: JSONValue) throws(WriteRefusal) {
        guard case .object(let object) = json else { throw .badInput("the body must be a JSON object") }
        guard case .int(let hour)? = object["hour"], (0...23).contains(hour) else {
            throw .badInput("hour is required: a whole hour from 0 to 23")
        }
        switch object["position"] {
        case nil, .null?: position = nil
        case .int(let value)? where value >= 0 && value <= Int(Int32.max): position = value
        default: throw .badInput("position must be a whole number of at least 0, or null for the end of the hour")
        }
        self.hour = hour
    }
}
