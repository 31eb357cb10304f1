import Foundation
import Model
import NIOHTTP1

/// What a client may send to create or change an 8alls event. Times are ISO-8601 with an
/// offset (or `Z`); they go upstream as UTC with `Z`, so a server that drops offsets (8alls on
/// SQLite) still stores the right instant.
public struct EventInput: Sendable, Equatable {
    public var title: String?
    public var description: String??
    public var start: Date?
    public var end: Date?
    public var allDay: Bool?
    public var location: String??
    public var status: String?
    public var type: String??
    public var color: String??
    public var tags: [String]?

    public static let fields: Set<String> = [
        "title", "description", "start", "end", "all_day", "location", "status", "type", "color", "tags",
    ]
    public static let statuses = ["confirmed", "tentative", "cancelled"]

    /// Reads a JSON object; unknown keys, wrong types and bad values are a 400 naming the field.
    public init(json: JSONValue) throws(WriteRefusal) {
        guard case .object(let object) = json else { throw .badInput("the body must be a JSON object") }
        if let unknown = object.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw .badInput(
                "unknown field \"\(String(unknown.prefix(40)))\" (fields: \(Self.fields.sorted().joined(separator: ", ")))"
            )
        }
        /// A text field: at most `max` characters as 8alls counts them (pydantic's `max_length`:
        /// code points, so a flag emoji is two; recorded: `Tests/Fixtures/recordings/eightalls`,
        /// 077), no control characters (line feeds and tabs in a `multiLine` one).
        func text(_ name: String, max: Int, multiLine: Bool = false) throws(WriteRefusal) -> String?? {
            switch object[name] {
            case nil: return nil
            case .null?: return .some(nil)
            case .string(let value)?:
                guard value.unicodeScalars.count <= max else {
                    throw .badInput("\(name) must be at most \(max) characters (code points)")
                }
                if let refusal = WriteRefusal.controlCharacter(
                    in: value, field: name, allowing: multiLine ? WriteRefusal.multiLine : [])
                {
                    throw refusal
                }
                return .some(value)
            default: throw .badInput("\(name) must be a string")
            }
        }
        func time(_ name: String) throws(WriteRefusal) -> Date? {
            guard let value = object[name] else { return nil }
            guard case .string(let raw) = value, raw.count <= 40, let date = LenientDate.parseWithOffset(raw) else {
                throw .badInput("\(name) must be an ISO-8601 time with an offset, e.g. 2026-11-23T14:00:00+01:00")
            }
            return date
        }
        switch try text("title", max: 255) {
        case .some(.some(let value)):
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .badInput("title must not be empty")
            }
            title = value
        case .some(.none): throw .badInput("title must not be null")
        case .none: title = nil
        }
        description = try text("description", max: 5000, multiLine: true)
        location = try text("location", max: 255)
        type = try text("type", max: 50)
        color = try text("color", max: 20)
        switch try text("status", max: 20) {
        case .some(.some(let value)):
            guard Self.statuses.contains(value) else {
                throw .badInput("status must be one of \(Self.statuses.joined(separator: ", "))")
            }
            status = value
        case .some(.none): throw .badInput("status must not be null")
        case .none: status = nil
        }
        start = try time("start")
        end = try time("end")
        switch object["all_day"] {
        case nil: allDay = nil
        case .bool(let value)?: allDay = value
        default: throw .badInput("all_day must be true or false")
        }
        switch object["tags"] {
        case nil: tags = nil
        case .array(let items)?:
            let values = items.compactMap(\.stringValue)
            guard values.count == items.count, values.count <= 20, values.allSatisfy({ !$0.isEmpty && $0.count <= 50 })
            else {
                throw .badInput("tags must be at most 20 strings of 1 to 50 characters")
            }
            tags = values
        default: throw .badInput("tags must be a list of strings")
        }
    }

    /// The upstream body: only the fields given (a PUT is a partial update).
    var upstreamBody: [String: JSONValue] {
        var body: [String: JSONValue] = [:]
        func put(_ name: String, _ value: String??) {
            if let value { body[name] = value.map(JSONValue.string) ?? .null }
        }
        if let title { body["title"] = .string(title) }
        put("description", description)
        put("location", location)
        put("event_type", type)
        put("color", color)
        if let status { body["status"] = .string(status) }
        if let start { body["start_time"] = .string(LenientDate.format(start, in: .gmt)) }
        if let end { body["end_time"] = .string(LenientDate.format(end, in: .gmt)) }
        if let allDay { body["all_day"] = .bool(allDay) }
        if let tags { body["tags"] = .array(tags.map(JSONValue.string)) }
        return body
    }
}

/// Creating, changing and deleting 8alls events. Each returns the local days the event
/// covered before and after, so the caller can invalidate exactly those cached days and ranges.
public enum EightAllsEventWrites {
    public struct Outcome: Sendable {
        /// The event as it is now (nil after a delete).
        public var event: Event?
        /// The time spans the change touched: the old and the new times.
        public var touched: [DateInterval]
    }

    public static func create(_ input: EventInput, context: OperationContext) async throws -> Outcome {
        guard input.title != nil, let start = input.start, let end = input.end else {
            throw WriteRefusal.badInput("a new event needs title, start and end")
        }
        guard end > start else { throw WriteRefusal.badInput("end must be after start") }
        let client = try client(context)
        let created = try await client.write(.POST, path: "/events", body: input.upstreamBody)
        return Outcome(event: created.unified(in: context.timeZone), touched: [created.span])
    }

    /// A partial update: only the fields given change. The current event is read first, so the
    /// days it covered are known and the merged times can be checked.
    public static func update(id: String, _ input: EventInput, context: OperationContext) async throws -> Outcome {
        let client = try client(context)
        let current = try await client.event(id: id)
        let start = input.start ?? current.start
        let end = input.end ?? current.end
        guard end > start else { throw WriteRefusal.badInput("end must be after start") }
        let updated = try await client.write(
            .PUT, path: "/events/" + QueryString.pathSegment(id), body: input.upstreamBody)
        return Outcome(event: updated.unified(in: context.timeZone), touched: [current.span, updated.span])
    }

    public static func delete(id: String, context: OperationContext) async throws -> Outcome {
        let client = try client(context)
        let current = try await client.event(id: id)
        _ = try await client.write(.DELETE, path: "/events/" + QueryString.pathSegment(id), body: nil)
        return Outcome(event: nil, touched: [current.span])
    }

    static func client(_ context: OperationContext) throws -> EightAllsClient {
        guard let endpoint = context.profile.eightalls?.endpoint else {
            throw BackendError(
                .notConfigured, backend: EightAllsClient.backend,
                message: "8alls is not configured for profile \(context.profileName)")
        }
        return EightAllsClient(endpoint: endpoint, http: context.http, profile: context.profileName)
    }
}

extension EightAllsEvent {
    var span: DateInterval { DateInterval(start: start, end: max(start, end)) }
}

extension EightAllsClient {
    /// One event by id; a 404 is a `WriteRefusal` (the client asked for something that is not there).
    func event(id: String) async throws -> EightAllsEvent {
        let response = try await http.send(
            url: endpoint.baseURL + "/events/" + QueryString.pathSegment(id), timeout: endpoint.timeout.seconds,
            source: source)
        if response.status == 404 { throw WriteRefusal.notFound("no 8alls event \(String(id.prefix(64)))") }
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        return try Self.decodeEvent(response.body)
    }

    /// POST, PUT or DELETE, sent once. Returns the event 8alls answers with (a dummy for 204).
    func write(_ method: HTTPMethod, path: String, body: [String: JSONValue]?) async throws -> EightAllsEvent {
        let response = try await http.send(
            method, url: endpoint.baseURL + path,
            body: try body.map { try JSONCoding.encode(JSONValue.object(JSONObject($0))) },
            timeout: endpoint.timeout.seconds, source: source
        )
        if response.status == 404 { throw WriteRefusal.notFound("no such 8alls event") }
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        if method == .DELETE { return EightAllsEvent.deleted }
        return try Self.decodeEvent(response.body)
    }

    /// One event as 8alls answers `GET`, `POST` and `PUT /events/…`.
    static func decodeEvent(_ body: Data) throws -> EightAllsEvent {
        guard let value = try? JSONValue(parsing: body),
            let event = EightAllsEvent(value)
        else {
            throw BackendError(
                .badResponse, backend: Self.backend, message: "8alls sent an event without id, title or times")
        }
        return event
    }
}

extension EightAllsEvent {
    static let deleted = EightAllsEvent(
        .object([
            "id": .string(""), "title": .string(""), "start_time": .string("1970-01-01T00:00:00Z"),
            "end_time": .string("1970-01-01T00:00:00Z"),
        ]))!
}
