import Foundation
import Hummingbird
import Model

/// The 8alls API as `routes/events.py` and `main.py` define it, with FastAPI 0.109 / pydantic 2.5
/// behaviour (validation, error shapes, routing quirks).
struct EightAllsBackend: SimulatorBackend {
    let store: EightAllsStore
    /// The `/ws` connection manager; the event routes broadcast through it.
    let sockets: EightAllsConnectionManager
    private let router: StarletteRouter

    init(store: EightAllsStore, sockets: EightAllsConnectionManager = EightAllsConnectionManager()) {
        self.store = store
        self.sockets = sockets
        var router = StarletteRouter()
        router.add(.get, "/api/events") { req, _ in Self.listEvents(store, req) }
        router.add(.get, "/api/events/{event_id}") { _, p in Self.getEvent(store, p["event_id"] ?? "") }
        // The real routes broadcast from a background task, i.e. right after the response; here the
        // broadcast finishes before the response, so a client that sees the answer also sees its effect.
        router.add(.post, "/api/events") { req, _ in
            let response = Self.createEvent(store, req)
            if response.status.code == 201 { await sockets.broadcast("event_created", .eventWithDatetimes) }
            return response
        }
        router.add(.put, "/api/events/{event_id}") { req, p in
            let response = Self.updateEvent(store, req, p["event_id"] ?? "")
            if response.status.code == 200 { await sockets.broadcast("event_updated", .eventWithDatetimes) }
            return response
        }
        router.add(.delete, "/api/events/{event_id}") { _, p in
            let id = p["event_id"] ?? ""
            let response = Self.deleteEvent(store, id)
            if response.status.code == 204 {
                await sockets.broadcast("event_deleted", .json(.object(["id": .string(id)])))
            }
            return response
        }
        router.add(.get, "/api/events/date/{date}") { _, p in Self.eventsByDate(store, p["date"] ?? "") }
        router.add(.get, "/") { _, _ in
            .json(.object(["message": .string("8alls API"), "version": .string("1.0.0"), "docs": .string("/docs")]))
        }
        router.add(.get, "/health") { _, _ in
            .json(.object(["status": .string("healthy"), "environment": .string("development")]))
        }
        self.router = router
    }

    func handle(_ request: SimRequest) async -> Response {
        await router.respond(to: request)
    }

    var servesWebSockets: Bool { true }

    /// `@router.websocket("/ws")`, matched exactly (Starlette does not redirect WebSocket paths).
    func webSocketHandler(for request: SimRequest) -> SimWebSocketHandler? {
        request.path == "/ws" ? sockets.handler : nil
    }

    var controlRoutes: [String] { ["GET /_sim/options", "POST /_sim/options", "POST /_sim/reset"] }

    func handleControl(_ request: SimRequest) async -> Response? {
        switch (request.method, request.path) {
        case (.get, "/_sim/options"):
            return .json(optionsJSON)
        case (.post, "/_sim/options"), (.put, "/_sim/options"):
            guard let body = JSONValue.parse(request.body.readableBytesView), case .object(let o) = body else {
                return .simError("expected a JSON object like {\"date_style\":\"naive\"}")
            }
            if let value = o["date_style"] {
                guard let raw = value.stringValue, let style = EightAllsSimulator.DateStyle(rawValue: raw) else {
                    return .simError("date_style must be \"zulu\" or \"naive\"")
                }
                store.dateStyle = style
            }
            return .json(optionsJSON)
        case (.post, "/_sim/reset"):
            store.reseed()
            return .json(.object(["events": .int(store.count)]))
        default:
            return nil
        }
    }

    private var optionsJSON: JSONValue {
        .object([
            "date_style": .string(store.dateStyle.rawValue),
            "seed_day": .string(store.seedDay),
            "time_zone": .string(store.timeZone.identifier),
        ])
    }

    // MARK: - Time conversions

    /// A request datetime as the database stores it: Postgres converts to UTC (naive = UTC),
    /// SQLite drops the offset.
    static func stored(_ value: PyDateTime, _ style: EightAllsSimulator.DateStyle) -> Int64 {
        style == .zulu ? value.utcMicros : value.wallMicros
    }

    /// A stored datetime as SQLAlchemy hands it back: aware on Postgres, naive on SQLite.
    static func loaded(_ micros: Int64, _ style: EightAllsSimulator.DateStyle) -> PyDateTime {
        PyDateTime(wallMicros: micros, offsetSeconds: style == .zulu ? 0 : nil)
    }

    /// `func.now()`: microseconds on Postgres, whole seconds (CURRENT_TIMESTAMP) on SQLite.
    static func now(_ style: EightAllsSimulator.DateStyle) -> Int64 {
        let micros = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded(.down))
        return style == .zulu ? micros : micros - micros % Civil.microsPerSecond
    }

    static func eventList(_ events: [EightAllsEvent], _ style: EightAllsSimulator.DateStyle) -> Response {
        .json(.array(events.map { $0.json(style: style) }))
    }

    static let notFound = Response.json(.object(["detail": .string("Event not found")]), status: 404)

    /// Starlette's ServerErrorMiddleware answer to an unhandled exception.
    static var internalServerError: Response { .plainText("Internal Server Error", status: 500) }

    // MARK: - Handlers

    static func listEvents(_ store: EightAllsStore, _ request: SimRequest) -> Response {
        let query = QueryItems(raw: request.rawQuery)
        var errors: [PydanticError] = []
        var bounds: [String: PyDateTime] = [:]
        for name in ["start_date", "end_date"] {
            guard let raw = query.value(name) else { continue }
            switch PyDateTime.pydanticParse(raw) {
            case .success(let value): bounds[name] = value
            case .failure(let error):
                errors.append(
                    .datetimeParsing([.string("query"), .string(name)], input: .string(raw), error: error.rawValue))
            }
        }
        if !errors.isEmpty { return PydanticError.response(errors) }
        let eventType = query.value("event_type") ?? ""
        let status = query.value("status") ?? ""
        let style = store.dateStyle
        let from = bounds["start_date"].map { stored($0, style) }
        let until = bounds["end_date"].map { stored($0, style) }
        let (events, renderStyle) = store.list { e in
            if let from, e.endTime < from { return false }
            if let until, e.startTime > until { return false }
            if !eventType.isEmpty, e.eventType != eventType { return false }
            if !status.isEmpty, e.status != status { return false }
            return true
        }
        return eventList(events, renderStyle)
    }

    static func getEvent(_ store: EightAllsStore, _ id: String) -> Response {
        let (event, style) = store.get(id)
        guard let event else { return notFound }
        return .json(event.json(style: style))
    }

    static func eventsByDate(_ store: EightAllsStore, _ date: String) -> Response {
        guard let target = PyDateTime.fromISOFormat(date) else {
            return .json(.object(["detail": .string("Invalid date format. Use YYYY-MM-DD")]), status: 400)
        }
        let midnight =
            target.wallMicros - ((target.wallMicros % Civil.microsPerDay) + Civil.microsPerDay) % Civil.microsPerDay
        let dayStart = PyDateTime(wallMicros: midnight, offsetSeconds: target.offsetSeconds)
        let dayEnd = PyDateTime(wallMicros: midnight + Civil.microsPerDay - 1, offsetSeconds: target.offsetSeconds)
        let style = store.dateStyle
        let (start, end) = (stored(dayStart, style), stored(dayEnd, style))
        let (events, renderStyle) = store.list { $0.startTime <= end && $0.endTime >= start }
        return eventList(events, renderStyle)
    }

    static func createEvent(_ store: EightAllsStore, _ request: SimRequest) -> Response {
        let fields: [String: FieldValue]
        switch EightAllsValidation.validateBody(request, mode: .create) {
        case .failure(let response): return response
        case .success(let f): fields = f
        }
        guard case .datetime(let start) = fields["start_time"], case .datetime(let end) = fields["end_time"] else {
            return internalServerError
        }
        guard let endNotAfterStart = PyDateTime.pythonLessOrEqual(end, start) else { return internalServerError }
        if endNotAfterStart {
            return .json(.object(["detail": .string("end_time must be after start_time")]), status: 400)
        }
        let style = store.dateStyle
        var event = EightAllsEvent(
            id: UUID().uuidString.lowercased(),
            title: "",
            startTime: stored(start, style),
            endTime: stored(end, style),
            createdAt: now(style)
        )
        for (name, value) in fields {
            guard apply(name, value, to: &event, style: style) else { return internalServerError }
        }
        let inserted = store.insert(event)
        return .json(inserted.json(style: style), status: 201)
    }

    static func updateEvent(_ store: EightAllsStore, _ request: SimRequest, _ id: String) -> Response {
        let fields: [String: FieldValue]
        switch EightAllsValidation.validateBody(request, mode: .update) {
        case .failure(let response): return response
        case .success(let f): fields = f
        }
        enum Outcome {
            case ok(EightAllsEvent, EightAllsSimulator.DateStyle)
            case badRange
            case serverError
        }
        let outcome: Outcome? = store.update(id) { event, style in
            // start_time = update_data.get("start_time", db_event.start_time), same for end_time.
            func resolve(_ name: String, _ current: Int64) -> PyDateTime? {
                switch fields[name] {
                case .none: return loaded(current, style)
                case .datetime(let value): return value
                default: return nil  // explicit null: comparing with None is a TypeError
                }
            }
            guard let start = resolve("start_time", event.startTime), let end = resolve("end_time", event.endTime),
                let endNotAfterStart = PyDateTime.pythonLessOrEqual(end, start)
            else { return .serverError }
            if endNotAfterStart { return .badRange }
            var updated = event
            for (name, value) in fields {
                // A null for a NOT NULL column fails at commit (IntegrityError): nothing changes.
                guard apply(name, value, to: &updated, style: style) else { return .serverError }
            }
            if updated != event { updated.updatedAt = now(style) }
            event = updated
            return .ok(updated, style)
        }
        switch outcome {
        case .none: return notFound
        case .serverError: return internalServerError
        case .badRange: return .json(.object(["detail": .string("end_time must be after start_time")]), status: 400)
        case .ok(let event, let style): return .json(event.json(style: style))
        }
    }

    static func deleteEvent(_ store: EightAllsStore, _ id: String) -> Response {
        guard store.delete(id) else { return notFound }
        // FastAPI blanks the body of a 204 but keeps JSONResponse's content-type.
        var response = Response(status: .noContent, headers: [.contentType: "application/json"], body: .init())
        response.headers[.contentLength] = nil
        return response
    }

    /// Sets one validated field on a row; false when the database would reject it (NULL in a
    /// NOT NULL column).
    static func apply(
        _ name: String, _ value: FieldValue, to event: inout EightAllsEvent, style: EightAllsSimulator.DateStyle
    ) -> Bool {
        switch (name, value) {
        case ("title", .string(let s)): event.title = s
        case ("description", _): event.description = value.string
        case ("start_time", .datetime(let d)): event.startTime = stored(d, style)
        case ("end_time", .datetime(let d)): event.endTime = stored(d, style)
        case ("all_day", .bool(let b)): event.allDay = b
        case ("location", _): event.location = value.string
        case ("recurrence_rule", _): event.recurrenceRule = value.string
        case ("status", .string(let s)): event.status = s
        case ("event_type", _): event.eventType = value.string
        case ("color", _): event.color = value.string
        case ("tags", .strings(let list)): event.tags = list
        case ("tags", .null): event.tags = nil
        case ("attendees", .objects(let list)): event.attendees = list
        case ("attendees", .null): event.attendees = nil
        case ("reminders", .objects(let list)): event.reminders = list
        case ("reminders", .null): event.reminders = nil
        default: return false
        }
        return true
    }
}

/// A validated body field.
enum FieldValue: Sendable, Equatable {
    case null
    case string(String)
    case datetime(PyDateTime)
    case bool(Bool)
    case strings([String])
    case objects([JSONValue])

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

/// pydantic validation of `EventCreate` / `EventUpdate` bodies, as FastAPI 0.109 runs it.
enum EightAllsValidation {
    enum Mode {
        case create, update
    }

    enum FieldType {
        case string(min: Int?, max: Int?)
        case datetime
        case bool
        case stringList
        case dictList
    }

    struct Field {
        let name: String
        let type: FieldType
        /// EventCreate: required (no default).
        let required: Bool
        /// EventCreate: `Optional[...]`.
        let nullable: Bool
    }

    /// `EventBase` in declaration order (errors come out in this order).
    static let fields: [Field] = [
        Field(name: "title", type: .string(min: 1, max: 255), required: true, nullable: false),
        Field(name: "description", type: .string(min: nil, max: nil), required: false, nullable: true),
        Field(name: "start_time", type: .datetime, required: true, nullable: false),
        Field(name: "end_time", type: .datetime, required: true, nullable: false),
        Field(name: "all_day", type: .bool, required: false, nullable: false),
        Field(name: "location", type: .string(min: nil, max: nil), required: false, nullable: true),
        Field(name: "recurrence_rule", type: .string(min: nil, max: nil), required: false, nullable: true),
        Field(name: "status", type: .string(min: nil, max: nil), required: false, nullable: false),
        Field(name: "event_type", type: .string(min: nil, max: nil), required: false, nullable: true),
        Field(name: "color", type: .string(min: nil, max: nil), required: false, nullable: true),
        Field(name: "tags", type: .stringList, required: false, nullable: true),
        Field(name: "attendees", type: .dictList, required: false, nullable: true),
        Field(name: "reminders", type: .dictList, required: false, nullable: true),
    ]

    /// Reads and validates the body. Success holds only the keys that were sent
    /// (`exclude_unset`); creation defaults are the row's own defaults.
    static func validateBody(_ request: SimRequest, mode: Mode) -> Checked<[String: FieldValue], Response> {
        let object: JSONObject
        switch FastAPIBody.object(request) {
        case .success(let sent): object = sent
        case .failure(let response): return .failure(response)
        }
        let body = JSONValue.object(object)
        var errors: [PydanticError] = []
        var values: [String: FieldValue] = [:]
        for field in fields {
            let loc: [JSONValue] = [.string("body"), .string(field.name)]
            guard let raw = object[field.name] else {
                if mode == .create, field.required { errors.append(.missing(loc, input: body)) }
                continue
            }
            let nullable = mode == .update || field.nullable
            switch validate(raw, as: field.type, nullable: nullable, loc: loc) {
            case .success(let value): values[field.name] = value
            case .failure(let fieldErrors): errors += fieldErrors
            }
        }
        if !errors.isEmpty { return .failure(PydanticError.response(errors)) }
        return .success(values)
    }

    static func validate(_ raw: JSONValue, as type: FieldType, nullable: Bool, loc: [JSONValue]) -> Checked<
        FieldValue, [PydanticError]
    > {
        if raw == .null, nullable { return .success(.null) }
        switch type {
        case .string(let min, let max):
            guard case .string(let s) = raw else { return .failure([.stringType(loc, input: raw)]) }
            if let error = PydanticError.stringLength(s, min: min, max: max, loc: loc, input: raw) {
                return .failure([error])
            }
            return .success(.string(s))
        case .datetime:
            switch raw {
            case .string(let s):
                switch PyDateTime.pydanticParse(s) {
                case .success(let d): return .success(.datetime(d))
                case .failure(let e): return .failure([.datetimeParsing(loc, input: raw, error: e.rawValue)])
                }
            case .int(let i): return .success(.datetime(PyDateTime.fromTimestamp(Double(i))))
            case .double(let d): return .success(.datetime(PyDateTime.fromTimestamp(d)))
            default:
                return .failure([
                    PydanticError(type: "datetime_type", loc: loc, msg: "Input should be a valid datetime", input: raw)
                ])
            }
        case .bool:
            let parsingError = PydanticError(
                type: "bool_parsing", loc: loc, msg: "Input should be a valid boolean, unable to interpret input",
                input: raw
            )
            switch raw {
            case .bool(let b): return .success(.bool(b))
            case .int(let i):
                if i == 0 || i == 1 { return .success(.bool(i == 1)) }
                return .failure([parsingError])
            case .double(let d):
                if d == 0 || d == 1 { return .success(.bool(d == 1)) }
                return .failure([parsingError])
            case .string(let s):
                guard let b = PydanticError.laxBool(s) else { return .failure([parsingError]) }
                return .success(.bool(b))
            default:
                return .failure([
                    PydanticError(type: "bool_type", loc: loc, msg: "Input should be a valid boolean", input: raw)
                ])
            }
        case .stringList, .dictList:
            guard case .array(let items) = raw else {
                return .failure([
                    PydanticError(type: "list_type", loc: loc, msg: "Input should be a valid list", input: raw)
                ])
            }
            var errors: [PydanticError] = []
            var strings: [String] = []
            for (i, item) in items.enumerated() {
                let itemLoc = loc + [.int(i)]
                if case .stringList = type {
                    if case .string(let s) = item {
                        strings.append(s)
                    } else {
                        errors.append(.stringType(itemLoc, input: item))
                    }
                } else if case .object = item {
                    continue
                } else {
                    errors.append(
                        PydanticError(
                            type: "dict_type", loc: itemLoc, msg: "Input should be a valid dictionary", input: item))
                }
            }
            if !errors.isEmpty { return .failure(errors) }
            if case .stringList = type { return .success(.strings(strings)) }
            return .success(.objects(items))
        }
    }
}
