import Backends
import Cache
import Foundation
import Hummingbird
import Model

/// The write endpoints. Each passes the write to its backend once (never retried blindly),
/// then drops exactly the cache entries the write made wrong — which tells live dashboards
/// over /v1/stream — and answers JSON. POSTs honour `Idempotency-Key` (`IdempotencyGuard`).
struct WriteRoutes: Sendable {
    let runtime: GatewayRuntime
    let idempotency: IdempotencyGuard

    init(runtime: GatewayRuntime) {
        self.runtime = runtime
        self.idempotency = IdempotencyGuard(database: runtime.database, logger: runtime.logger)
    }

    func register(on router: Router<GatewayRequestContext>) {
        router.post("/v1/tasks") { request, context in try await addTask(request, context) }
        router.post("/v1/events") { request, context in try await createEvent(request, context) }
        router.put("/v1/events/{id}") { request, context in try await updateEvent(request, context) }
        router.delete("/v1/events/{id}") { request, context in try await deleteEvent(request, context) }
        router.post("/v1/captures") { request, context in try await capture(request, context) }
        router.post("/v1/food-logs") { request, context in try await logFood(request, context) }
        router.post("/v1/diensten/{id}/volunteers") { request, context in try await addVolunteer(request, context) }
        router.delete("/v1/diensten/{id}/volunteers/{name}") { request, context in
            try await removeVolunteer(request, context)
        }
    }

    // MARK: - Tickedify

    /// `POST /v1/tasks {"title"}` → the Tickedify inbox; the inbox list and the counts are invalidated.
    func addTask(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let (body, bytes) = try await WriteBody.object(of: request)
        try WriteBody.check(body, allowed: ["title"])
        guard let title = body["title"]?.stringValue else {
            throw GatewayError(.badRequest, code: "bad_request", message: "title is required (a string)")
        }
        return try await idempotency.run(request: request, profile: context.profile, body: bytes) {
            let id = try await perform(context) { try await TickedifyInbox.add(title: title, context: $0) }
            await runtime.cache.invalidate(profile: context.profile, operation: "tickedify.list") {
                $0["list"]?.string == "inbox"
            }
            await runtime.cache.invalidate(profile: context.profile, operation: "tickedify.counts")
            return (
                .created,
                try JSONCoding.encode([
                    "task": ["id": id, "title": title.trimmingCharacters(in: .whitespacesAndNewlines), "list": "inbox"]
                ])
            )
        }
    }

    // MARK: - 8alls

    func createEvent(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let (body, bytes) = try await WriteBody.object(of: request)
        let input = try eventInput(body)
        return try await idempotency.run(request: request, profile: context.profile, body: bytes) {
            let outcome = try await perform(context) { try await EightAllsEventWrites.create(input, context: $0) }
            await invalidateEvents(touching: outcome.touched, profile: context.profile)
            return (.created, try JSONCoding.encode(["event": outcome.event]))
        }
    }

    func updateEvent(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let id = try pathID(context, "id")
        let (body, _) = try await WriteBody.object(of: request)
        let input = try eventInput(body)
        let outcome = try await perform(context) { try await EightAllsEventWrites.update(id: id, input, context: $0) }
        await invalidateEvents(touching: outcome.touched, profile: context.profile)
        return try JSONResponse.make(status: .ok, body: JSONCoding.encode(["event": outcome.event]))
    }

    func deleteEvent(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let id = try pathID(context, "id")
        let outcome = try await perform(context) { try await EightAllsEventWrites.delete(id: id, context: $0) }
        await invalidateEvents(touching: outcome.touched, profile: context.profile)
        return try JSONResponse.make(status: .ok, body: JSONCoding.encode(["deleted": ["id": id]]))
    }

    func eventInput(_ body: JSONValue) throws -> EventInput {
        do {
            return try EventInput(json: body)
        } catch {
            throw WriteError.gatewayError(for: error)
        }
    }

    /// Drops the cached event lists whose local days (`from`…`to`) meet a day the event covered
    /// before or after the change.
    func invalidateEvents(touching spans: [DateInterval], profile: String) async {
        let zone = runtime.config.timeZone
        let days = spans.map { span in
            (
                LocalDate(containing: span.start, in: zone),
                LocalDate(containing: max(span.start, span.end.addingTimeInterval(-0.001)), in: zone)
            )
        }
        await runtime.cache.invalidate(profile: profile, operation: "eightalls.events") { arguments in
            guard let from = arguments["from"]?.date, let to = arguments["to"]?.date else { return true }
            return days.contains { first, last in from <= last && first <= to }
        }
    }

    // MARK: - PRSNL

    /// `POST /v1/captures {"url" | "content", "title"?, "tags"?, "content_type"?}` → 202: PRSNL
    /// saves it in the background. The timeline, search and tags are invalidated.
    func capture(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let (body, bytes) = try await WriteBody.object(of: request)
        try WriteBody.check(body, allowed: ["url", "content", "title", "tags", "content_type"])
        let input = try WriteBody.decode(CaptureInput.self, from: bytes)
        return try await idempotency.run(request: request, profile: context.profile, body: bytes) {
            let answer = try await perform(context) { operationContext in
                try input.validate()
                return try await PRSNLCaptures.capture(input, context: operationContext)
            }
            for operation in ["prsnl.timeline", "prsnl.search", "prsnl.tags"] {
                await runtime.cache.invalidate(profile: context.profile, operation: operation)
            }
            return (.accepted, try JSONCoding.encode(["capture": answer]))
        }
    }

    // MARK: - FitIQ

    /// `POST /v1/food-logs` → 201; that day's nutrition and food logs are invalidated.
    func logFood(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let (body, bytes) = try await WriteBody.object(of: request)
        try WriteBody.check(body, allowed: ["food_id", "food_source", "meal_type", "servings", "logged_at", "notes"])
        let input = try WriteBody.decode(FoodLogInput.self, from: bytes)
        return try await idempotency.run(request: request, profile: context.profile, body: bytes) {
            let (log, date) = try await perform(context) { operationContext in
                try input.validate()
                return try await FitIQFoodLogs.log(input, context: operationContext)
            }
            for operation in ["fitiq.nutrition", "fitiq.food_logs"] {
                await runtime.cache.invalidate(profile: context.profile, operation: operation) {
                    $0["date"] == nil || $0["date"]?.date == date
                }
            }
            struct Answer: Encodable {
                var foodLog: JSONValue
                var date: String
                enum CodingKeys: String, CodingKey {
                    case foodLog = "food_log"
                    case date
                }
            }
            return (.created, try JSONCoding.encode(Answer(foodLog: log, date: date.description)))
        }
    }

    // MARK: - Kantine Koning

    /// `POST /v1/diensten/{id}/volunteers {"name"}` → 200 `{"dienst"}` (managers only, future
    /// diensten only, 1–15 characters, no duplicate); diensten are invalidated.
    func addVolunteer(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let id = try pathID(context, "id")
        let (body, bytes) = try await WriteBody.object(of: request)
        try WriteBody.check(body, allowed: ["name"])
        guard let name = body["name"]?.stringValue else {
            throw GatewayError(.badRequest, code: "bad_request", message: "name is required (a string)")
        }
        return try await idempotency.run(request: request, profile: context.profile, body: bytes) {
            let dienst = try await perform(context) {
                try await KantineKoningVolunteers.add(name: name, toDienst: id, context: $0)
            }
            await runtime.cache.invalidate(profile: context.profile, operation: "kantinekoning.diensten")
            return (.ok, try JSONCoding.encode(["dienst": dienst]))
        }
    }

    /// `DELETE /v1/diensten/{id}/volunteers/{name}` → 200 `{"dienst"}`.
    func removeVolunteer(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let id = try pathID(context, "id")
        let name = try pathID(context, "name")
        let dienst = try await perform(context) {
            try await KantineKoningVolunteers.remove(name: name, fromDienst: id, context: $0)
        }
        await runtime.cache.invalidate(profile: context.profile, operation: "kantinekoning.diensten")
        return try JSONResponse.make(status: .ok, body: JSONCoding.encode(["dienst": dienst]))
    }

    // MARK: - shared

    /// Runs a backend write for the request's profile; maps every failure to its JSON answer and
    /// to whether the write may have happened (`WriteFailed`).
    func perform<Value: Sendable>(
        _ context: GatewayRequestContext, _ write: @Sendable (OperationContext) async throws -> Value
    ) async throws -> Value {
        guard let profile = runtime.config.profiles[context.profile] else {
            throw GatewayError(.notFound, code: "unknown_profile", message: "no profile \(context.profile)")
        }
        let operationContext = OperationContext(
            profileName: context.profile, profile: profile, clock: runtime.aggregator.clock(), http: runtime.http,
            sessions: runtime.sessions, logger: context.logger
        )
        do {
            let value = try await write(operationContext)
            context.logger.info("write done")
            return value
        } catch {
            let failure = WriteFailed(error)
            context.logger.warning(
                "write refused",
                metadata: [
                    "error.code": "\(failure.answer.detail.code)", "status": "\(failure.status.code)",
                    "outcome": "\(failure.outcome)",
                ])
            throw failure
        }
    }

    func pathID(_ context: GatewayRequestContext, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name), let id = raw.removingPercentEncoding, !id.isEmpty, id.count <= 200
        else {
            throw GatewayError(.badRequest, code: "bad_request", message: "\(name) must be 1 to 200 characters")
        }
        return id
    }
}
