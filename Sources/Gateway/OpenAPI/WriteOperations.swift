import Backends
import Foundation
import Model

/// The write endpoints and the security behaviour in /openapi.json: request bodies, answers,
/// the errors every write can get (its own refusals, the backend's, the gateway's limits), the
/// `Idempotency-Key` of POSTs, and the `clientKey` bearer scheme with the 401/403/431 answers
/// the access and limit middleware give.
extension OpenAPIDocument {
    // MARK: - Security

    static let clientKeyScheme = "clientKey"

    static var securitySchemes: [String: JSONValue] {
        [
            clientKeyScheme: .object([
                "type": .string("http"),
                "scheme": .string("bearer"),
                "description": .string(
                    "A client key from the gateway's `clients:` config, sent as `Authorization: Bearer <key>`; the key picks the "
                        + "profile whose data is served. Required on /v1/* and /metrics only when the gateway has client keys: a "
                        + "missing or unknown key is then 401 `unauthorized` with `WWW-Authenticate: Bearer realm=\"daygate\"` "
                        + "(the same answer for both). Without client keys (loopback mode, the default) no key is needed and every "
                        + "request is served the default profile, but the `Host` header must name this machine (localhost, "
                        + "*.localhost, 127.x.x.x, [::1] or a name in `allowed_hosts`), else 403 `host_not_allowed`."
                ),
            ])
        ]
    }

    /// `security` of an operation that needs a key when the gateway has client keys: the key,
    /// or nothing (loopback mode).
    static var optionalClientKey: JSONValue {
        .array([.object([clientKeyScheme: .array([])]), .object([:])])
    }

    static let securityDescription =
        "\n\n**Security.** When the gateway has client keys (`clients:` in its config), every /v1/* endpoint and /metrics need "
        + "`Authorization: Bearer <key>` (security scheme `clientKey`); a missing or unknown key is 401 `unauthorized` with "
        + "`WWW-Authenticate: Bearer realm=\"daygate\"`, and the key decides the profile. Without client keys the gateway listens on "
        + "loopback only, needs no key and serves the default profile, and a request whose `Host` does not name this machine "
        + "is 403 `host_not_allowed` (against DNS rebinding). /healthz, /readyz and /openapi.json never need a key. Every request "
        + "may carry at most 100 headers and 32 KB of them (else 431 `headers_too_large`) and a body of at most 64 KB (else 413 "
        + "`body_too_large`)."
        + "\n\n**Writes** (tag `writes`) take `Content-Type: application/json` (else 415 `unsupported_media_type`) and a JSON object "
        + "with only the documented fields (else 400 `bad_request`, naming an unknown field). Each is passed to its backend once, "
        + "never retried, and then exactly the cached sections it made wrong are dropped (live dashboards hear of it over "
        + "/v1/stream). A POST may carry `Idempotency-Key`: a retry with the same key and body gets the kept answer again with "
        + "`Idempotent-Replayed: true`. A backend's refusal is `upstream_rejected` with 403, 404, 409, 410 or 422; its rate limit "
        + "429 `upstream_rate_limited` with `Retry-After`; a failing backend 502/503/504. Every error is the `Error` schema."

    /// Adds `security`, 401 (where a key can be needed), 403 `host_not_allowed` and 431 to every
    /// operation, unless the operation documents that status itself.
    static func secured(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        var result = paths
        for (path, item) in paths {
            guard case .object(var operations) = item else { continue }
            let needsKey = Admission.needsKey(path)
            for (method, operation) in operations {
                guard case .object(var fields) = operation, case .object(var responses)? = fields["responses"] else {
                    continue
                }
                if needsKey {
                    fields["security"] = optionalClientKey
                    if responses["401"] == nil { responses["401"] = responseRef("Unauthorized") }
                }
                if responses["403"] == nil { responses["403"] = responseRef("HostNotAllowed") }
                if responses["431"] == nil { responses["431"] = responseRef("HeadersTooLarge") }
                fields["responses"] = .object(responses)
                operations[method] = .object(fields)
            }
            result[path] = .object(operations)
        }
        return result
    }

    // MARK: - Headers, parameters and responses of writes

    static var writeHeaders: [String: JSONValue] {
        [
            "Retry-After": header(
                "Seconds to wait before trying again: the backend's own Retry-After, or how long the gateway holds calls to it back "
                    + "(its rate limit, an open circuit, a blocked login).",
                schema: JSONSchema.type("integer", extra: ["minimum": .number(0)])
            ),
            "Idempotent-Replayed": header(
                "`true` when this is the kept answer of an earlier request with the same Idempotency-Key and body; nothing was written again.",
                schema: JSONSchema.enumeration(["true"])
            ),
            "WWW-Authenticate": header(
                "The scheme to authenticate with: `Bearer realm=\"daygate\"`.",
                schema: JSONSchema.type("string", extra: ["example": .string("Bearer realm=\"daygate\"")])
            ),
        ]
    }

    static var writeParameters: [String: JSONValue] {
        [
            "IdempotencyKey": .object([
                "name": .string("Idempotency-Key"), "in": .string("header"), "required": .bool(false),
                "description": .string(
                    "1 to 255 visible ASCII characters, e.g. a UUID (else 400 `bad_request`). The first request with a key is "
                        + "executed and its answer (success or 4xx) kept for 24 hours per profile; a retry with the same key and the "
                        + "same method, path and body gets that answer again with `Idempotent-Replayed: true` and writes nothing; "
                        + "the same key with another request is 422 `idempotency_key_reused`; a retry while the first is still "
                        + "running is 409 `idempotency_key_in_flight`. 5xx answers are not kept, so such a write can be retried with "
                        + "the same key."
                ),
                "schema": JSONSchema.type(
                    "string",
                    extra: [
                        "minLength": .number(1), "maxLength": .number(255), "pattern": .string("^[!-~]+$"),
                    ]),
                "example": .string("4f1c7e0a-9b2d-4c1e-8a55-2f0b6f3d9e71"),
            ]),
            "EventID": pathParameter(
                "id", "The 8alls event's id.",
                schema: JSONSchema.type(
                    "string",
                    extra: [
                        "minLength": .number(1), "maxLength": .number(200),
                    ])),
            "DienstID": pathParameter(
                "id", "The dienst's id (as in /v1/diensten).",
                schema: JSONSchema.type(
                    "string",
                    extra: [
                        "minLength": .number(1), "maxLength": .number(100),
                    ])),
            "VolunteerName": pathParameter(
                "name",
                "The volunteer's name as it is on the dienst (percent-encoded; compared case-insensitively). Names added here have "
                    + "at most \(KantineKoningVolunteers.maximumNameLength) characters; a longer one typed in by the club itself can be "
                    + "removed too.",
                schema: JSONSchema.type("string", extra: ["minLength": .number(1), "maxLength": .number(100)])
            ),
        ]
    }

    static func pathParameter(_ name: String, _ description: String, schema: JSONValue) -> JSONValue {
        .object([
            "name": .string(name), "in": .string("path"), "required": .bool(true),
            "description": .string(description), "schema": schema,
        ])
    }

    static var errorContent: JSONValue {
        jsonContent(JSONSchema.ref("Error"))
    }

    static func errorResponse(_ description: String, headers extra: [String: JSONValue] = [:]) -> JSONValue {
        var headers: [String: JSONValue] = ["X-Request-Id": headerRef("X-Request-Id")]
        for (name, value) in extra { headers[name] = value }
        return .object(["description": .string(description), "headers": .object(headers), "content": errorContent])
    }

    /// A header a response always carries.
    static func requiredHeader(_ name: String) -> JSONValue {
        var fields = writeHeaders[name]?.objectValue ?? [:]
        fields["required"] = .bool(true)
        return .object(fields)
    }

    static var securityAndWriteResponses: [String: JSONValue] {
        [
            "Unauthorized": errorResponse(
                "Only when the gateway has client keys: no `Authorization: Bearer <key>`, or a key it does not know (the same answer "
                    + "for both). Code `unauthorized`.",
                headers: ["WWW-Authenticate": requiredHeader("WWW-Authenticate")]
            ),
            "HostNotAllowed": errorResponse(
                "Only in loopback mode (no client keys): the `Host` header does not name this machine (localhost, *.localhost, "
                    + "127.x.x.x, [::1] or a name in `allowed_hosts`). Code `host_not_allowed`."
            ),
            "HeadersTooLarge": errorResponse(
                "More than 100 request headers or more than 32 KB of them. Code `headers_too_large`."),
            "BodyTooLarge": errorResponse(
                "The request body is larger than 64 KB (declared or sent). Code `body_too_large`."),
            "UnsupportedMediaType": errorResponse(
                "The request is not `Content-Type: application/json` (a page on another site cannot send that without a CORS "
                    + "preflight). Code `unsupported_media_type`."
            ),
            "RateLimited": errorResponse(
                "The backend is rate limiting: it answered 429, or the gateway holds calls back until its Retry-After has passed. "
                    + "Code `upstream_rate_limited`. Nothing was written.",
                headers: ["Retry-After": requiredHeader("Retry-After")]
            ),
            "BadGateway": errorResponse(
                "The backend failed: `upstream_error` (a 5xx or an unexpected status), `upstream_unreachable` (no connection), "
                    + "`upstream_bad_response` (an answer that is not what its contract says), `reauth_required` (it refused the "
                    + "configured credentials; a person has to fix the config). The write was not retried; whether it happened "
                    + "upstream is unknown for upstream_error and upstream_bad_response."
            ),
            "Unavailable": errorResponse(
                "The backend was not called: `upstream_circuit_open` (it failed repeatedly), `reauth_blocked` (logging in again "
                    + "is not allowed yet), `upstream_unavailable` (a known upstream bug on this route). Retry-After when the wait is known.",
                headers: ["Retry-After": headerRef("Retry-After")]
            ),
            "GatewayTimeout": errorResponse(
                "The backend did not answer within its timeout. Code `upstream_timeout`; whether the write happened is unknown."
            ),
        ]
    }

    // MARK: - Write operations

    struct WriteOperation {
        var method: String
        var path: String
        var operationID: String
        var summary: String
        var description: String
        var backend: String
        var parameters: [String] = []
        var body: String?
        var success: (status: String, description: String, schema: String)
        var badRequest: String
        var forbidden: String?
        var notFound: String?
        var conflict: String?
        var rateLimit: String?

        var isPost: Bool { method == "post" }
        var hasBody: Bool { body != nil }
    }

    static let writeOperations: [WriteOperation] = [
        WriteOperation(
            method: "post", path: "/v1/tasks", operationID: "createTask", summary: "Add a task to the Tickedify inbox.",
            description:
                "The title is trimmed. Adds are serialised per Tickedify account (its server rewrites the whole inbox on "
                + "each add, so concurrent adds would lose tasks) and are never retried. The cached inbox list and the task counts "
                + "are dropped.",
            backend: "Tickedify", body: "NewTask",
            success: ("201", "The task is in the inbox.", "TaskCreated"),
            badRequest:
                "title missing, not a string, empty after trimming, longer than 500 characters or with control characters; "
                + "or an unknown field"
        ),
        WriteOperation(
            method: "post", path: "/v1/events", operationID: "createEvent", summary: "Create an 8alls calendar event.",
            description:
                "title, start and end are required; times need an offset (they are sent upstream in UTC) and end must be "
                + "after start. The cached event lists of the local days the event covers are dropped.",
            backend: "8alls", body: "EventCreate",
            success: ("201", "The event as 8alls stored it, times in the gateway's timezone.", "EventAnswer"),
            badRequest:
                "a required field missing, a time without an offset, end not after start, a value of the wrong type, "
                + "too long or not one of the allowed values; or an unknown field"
        ),
        WriteOperation(
            method: "put", path: "/v1/events/{id}", operationID: "updateEvent",
            summary: "Change an 8alls event (partial update).",
            description:
                "Only the fields given change; null clears description, location, type or color. The current event is "
                + "read first: the merged end must be after the merged start, and the cached event lists of the days it covered "
                + "before and after are dropped. Not covered by Idempotency-Key (sending the same fields again changes nothing).",
            backend: "8alls", parameters: ["EventID"], body: "EventUpdate",
            success: ("200", "The event as it is now.", "EventAnswer"),
            badRequest:
                "a time without an offset, end not after start, a value of the wrong type, too long or not one of the "
                + "allowed values, or title/status null; or an unknown field",
            notFound: "`not_found`: there is no 8alls event with this id."
        ),
        WriteOperation(
            method: "delete", path: "/v1/events/{id}", operationID: "deleteEvent", summary: "Delete an 8alls event.",
            description:
                "The event is read first (to know its days), then deleted; the cached event lists of its days are dropped. "
                + "No body and no Content-Type needed.",
            backend: "8alls", parameters: ["EventID"],
            success: ("200", "The event is gone.", "EventDeleted"),
            badRequest: "an id longer than 200 characters",
            notFound: "`not_found`: there is no 8alls event with this id (also when it was already deleted)."
        ),
        WriteOperation(
            method: "post", path: "/v1/captures", operationID: "createCapture",
            summary: "Save a link or a note in PRSNL.",
            description:
                "At least one of url and content. The content_type sent to PRSNL is always explicit (absent or `auto` "
                + "becomes `link` for a URL, `note` for content: PRSNL fails on a URL capture without one); tags are sent "
                + "lower-cased without repeats. PRSNL processes a capture in the background: the answer is its acknowledgement "
                + "(status `pending`) with what was sent. The cached timeline, search results and tags are dropped. A URL that is "
                + "already saved is PRSNL's refusal (422 `upstream_rejected`).",
            backend: "PRSNL", body: "NewCapture",
            success: ("202", "PRSNL accepted the capture and processes it in the background.", "CaptureAccepted"),
            badRequest:
                "neither url nor content, a url that is not http(s), a value too long or of the wrong type, more than "
                + "20 tags, a content_type PRSNL does not know; or an unknown field",
            conflict: nil,
            rateLimit: "PRSNL allows 30 captures a minute; when it says so, the answer is 429 with `Retry-After`."
        ),
        WriteOperation(
            method: "post", path: "/v1/food-logs", operationID: "createFoodLog", summary: "Log food in FitIQ.",
            description:
                "food_id is a food of FitIQ's catalog (or the user's own); logged_at (default now) is sent in UTC. The "
                + "cached nutrition and food logs of the local day it is logged on (`date` in the answer) are dropped.",
            backend: "FitIQ", body: "NewFoodLog",
            success: ("201", "The logged entry and the local day it counts for.", "FoodLogCreated"),
            badRequest:
                "a required field missing or of the wrong type, meal_type or food_source not one of the allowed "
                + "values, servings not more than 0 or over 100, logged_at without an offset, notes too long; or an unknown field",
            notFound: "`upstream_rejected`: FitIQ does not know the food."
        ),
        WriteOperation(
            method: "post", path: "/v1/diensten/{id}/volunteers", operationID: "addVolunteer",
            summary: "Put a volunteer's name on a Kantine Koning dienst.",
            description:
                "Only a manager of the dienst's team may (as in the club's app), only on a dienst that has not started, "
                + "and a name only once (compared case-insensitively). The dienst is looked up fresh in every enrollment's "
                + "diensten; the call goes to the club with the token of the enrollment that manages its team. Changes to one "
                + "dienst run one at a time. The cached diensten are dropped.",
            backend: "Kantine Koning", parameters: ["DienstID"], body: "NewVolunteer",
            success: ("200", "The dienst with its volunteers now.", "DienstAnswer"),
            badRequest:
                "name missing, not a string, empty or longer than 15 characters after trimming, or with control "
                + "characters; an id longer than 100 characters; or an unknown field",
            forbidden:
                "`forbidden`: the profile's enrollments that see this dienst are members only; only a team manager may "
                + "change its volunteers.",
            notFound: "`not_found`: none of the profile's enrollments sees a dienst with this id.",
            conflict: "`conflict`: the name is already on the dienst, or the dienst has already started."
        ),
        WriteOperation(
            method: "delete", path: "/v1/diensten/{id}/volunteers/{name}", operationID: "removeVolunteer",
            summary: "Take a volunteer's name off a Kantine Koning dienst.",
            description:
                "The same rules as adding: a manager of the dienst's team, a dienst that has not started. No body "
                + "and no Content-Type needed. The cached diensten are dropped.",
            backend: "Kantine Koning", parameters: ["DienstID", "VolunteerName"],
            success: ("200", "The dienst with its volunteers now.", "DienstAnswer"),
            badRequest: "an id or a name longer than 100 characters, or with control characters",
            forbidden:
                "`forbidden`: the profile's enrollments that see this dienst are members only; only a team manager may "
                + "change its volunteers.",
            notFound:
                "`not_found`: none of the profile's enrollments sees a dienst with this id, or the name is not on it.",
            conflict: "`conflict`: the dienst has already started."
        ),
    ]

    /// The write operations by path and method.
    static var writePaths: [String: [String: JSONValue]] {
        var paths: [String: [String: JSONValue]] = [:]
        for write in writeOperations {
            paths[write.path, default: [:]][write.method] = operation(write)
        }
        return paths
    }

    static func operation(_ write: WriteOperation) -> JSONValue {
        let backend = write.backend
        var successHeaders: [String: JSONValue] = ["X-Request-Id": headerRef("X-Request-Id")]
        if write.isPost { successHeaders["Idempotent-Replayed"] = headerRef("Idempotent-Replayed") }
        let idempotency = write.isPost ? " Idempotency-Key: a malformed key." : ""
        var responses: [String: JSONValue] = [
            write.success.status: .object([
                "description": .string(write.success.description),
                "headers": .object(successHeaders),
                "content": jsonContent(JSONSchema.ref(write.success.schema)),
            ]),
            "400": errorResponse("Code `bad_request`: \(write.badRequest); the message says which.\(idempotency)"),
            "401": responseRef("Unauthorized"),
            "403": errorResponse(
                "`host_not_allowed` (loopback mode, a `Host` that is not this machine), or `upstream_rejected`: \(backend) "
                    + "answered 403." + (write.forbidden.map { " " + $0 } ?? "")
            ),
            "404": errorResponse(
                (write.notFound.map { $0 + " " } ?? "")
                    + "`not_configured`: the profile has no \(backend); `upstream_rejected`: \(backend) answered 404."
            ),
            "409": errorResponse(
                (write.conflict.map { $0 + " " } ?? "")
                    + (write.isPost
                        ? "`idempotency_key_in_flight`: a request with this Idempotency-Key is still running. " : "")
                    + "`upstream_rejected`: \(backend) answered 409."
            ),
            "410": errorResponse("`upstream_rejected`: \(backend) answered 410 Gone."),
            "413": responseRef("BodyTooLarge"),
            "422": errorResponse(
                (write.isPost
                    ? "`idempotency_key_reused`: this Idempotency-Key was used for a different request. " : "")
                    + "`upstream_rejected`: \(backend) refused the request with another 4xx (its message, scrubbed of secrets, "
                    + "is in the error's message)."
            ),
            "429": write.rateLimit.map {
                errorResponse(
                    $0 + " Code `upstream_rate_limited`; nothing was written.",
                    headers: ["Retry-After": requiredHeader("Retry-After")]
                )
            } ?? responseRef("RateLimited"),
            "431": responseRef("HeadersTooLarge"),
            "502": responseRef("BadGateway"),
            "503": responseRef("Unavailable"),
            "504": responseRef("GatewayTimeout"),
            "default": responseRef("Error"),
        ]
        if write.hasBody { responses["415"] = responseRef("UnsupportedMediaType") }

        var parameters = write.parameters.map(JSONSchema.parameterRef)
        if write.isPost { parameters.append(JSONSchema.parameterRef("IdempotencyKey")) }
        var fields: [String: JSONValue] = [
            "operationId": .string(write.operationID),
            "tags": .array([.string("writes")]),
            "summary": .string(write.summary),
            "description": .string(write.description),
            "responses": .object(responses),
        ]
        if !parameters.isEmpty { fields["parameters"] = .array(parameters) }
        if let body = write.body {
            fields["requestBody"] = .object([
                "required": .bool(true),
                "content": jsonContent(JSONSchema.ref(body)),
            ])
        }
        return .object(fields)
    }

    // MARK: - Schemas of write bodies and answers

    static func string(
        min: Int? = nil, max: Int, nullable: Bool = false, description: String? = nil, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var schema = extra
        schema["type"] = nullable ? .array([.string("string"), .string("null")]) : .string("string")
        if let min { schema["minLength"] = .number(Double(min)) }
        schema["maxLength"] = .number(Double(max))
        return JSONSchema.described(schema, description)
    }

    /// The fields of an 8alls event a client may send (`EventInput`).
    static var eventInputProperties: [String: JSONValue] {
        typealias S = JSONSchema
        let offsetTime = S.type(
            "string", format: "date-time",
            description:
                "ISO-8601 with an offset or Z, e.g. 2026-11-23T10:00:00+01:00; a time without an offset is refused.",
            extra: ["maxLength": .number(40)]
        )
        return [
            "title": string(
                min: 1, max: 255, description: "Not empty or only spaces.", extra: ["pattern": .string("\\S")]),
            "start": offsetTime,
            "end": offsetTime,
            "description": string(max: 5000, nullable: true, description: "null clears it."),
            "location": string(max: 255, nullable: true, description: "null clears it."),
            "all_day": S.type("boolean"),
            "status": S.enumeration(EventInput.statuses),
            "type": string(
                max: 50, nullable: true, description: "8alls' event_type (meeting, personal, …); null clears it."),
            "color": string(max: 20, nullable: true, description: "null clears it."),
            "tags": S.type(
                "array", description: "Replaces the event's tags.",
                extra: [
                    "items": string(min: 1, max: 50),
                    "maxItems": .number(20),
                ]),
        ]
    }

    static var writeSchemas: [String: JSONValue] {
        typealias S = JSONSchema
        var capture = S.object(
            [
                "url": string(
                    max: CaptureInput.maximumURLLength, description: "An http:// or https:// URL to save.",
                    extra: ["format": .string("uri")]),
                "content": string(max: CaptureInput.maximumContentLength, description: "The text of a note."),
                "title": string(max: CaptureInput.maximumTitleLength),
                "tags": S.type(
                    "array", description: "Sent lower-cased, without repeats.",
                    extra: [
                        "items": string(min: 1, max: CaptureInput.maximumTagLength),
                        "maxItems": .number(Double(CaptureInput.maximumTags)),
                    ]),
                "content_type": S.enumeration(
                    CaptureInput.contentTypes,
                    description: "PRSNL's content type; absent or `auto`: `link` for a URL, `note` for content."
                ),
            ], required: [],
            description: "Body of POST /v1/captures: a link (url) or a note (content), or both; one of them not blank.")
        if case .object(var fields) = capture {
            fields["anyOf"] = .array([
                .object(["required": .array([.string("url")])]),
                .object(["required": .array([.string("content")])]),
            ])
            capture = .object(fields)
        }
        return [
            "NewTask": S.object(
                [
                    "title": string(
                        min: 1, max: TickedifyInbox.maximumTitleLength,
                        description: "Trimmed; not empty, no control characters.", extra: ["pattern": .string("\\S")]
                    )
                ], description: "Body of POST /v1/tasks."),
            "EventCreate": S.object(
                eventInputProperties, required: ["title", "start", "end"],
                description: "Body of POST /v1/events: a new 8alls event."
            ),
            "EventUpdate": S.object(
                eventInputProperties, required: [],
                description: "Body of PUT /v1/events/{id}: only the fields to change (title and status cannot be null)."
            ),
            "NewCapture": capture,
            "NewFoodLog": S.object(
                [
                    "food_id": string(
                        min: 1, max: FoodLogInput.maximumFoodIDLength,
                        description:
                            "The id (a UUID) of a food of FitIQ's catalog or the user's own; FitIQ refuses others."
                    ),
                    "food_source": S.enumeration(FoodLogInput.foodSources),
                    "meal_type": S.enumeration(FoodLogInput.mealTypes),
                    "servings": S.type(
                        "number",
                        extra: [
                            "exclusiveMinimum": .number(0), "maximum": .number(FoodLogInput.maximumServings),
                        ]),
                    "logged_at": S.type(
                        "string", format: "date-time", description: "ISO-8601 with an offset or Z; default: now.",
                        extra: ["maxLength": .number(40)]
                    ),
                    "notes": string(max: FoodLogInput.maximumNotesLength),
                ], required: ["food_id", "food_source", "meal_type", "servings"],
                description: "Body of POST /v1/food-logs."),
            "NewVolunteer": S.object(
                [
                    "name": string(
                        min: 1, max: KantineKoningVolunteers.maximumNameLength,
                        description:
                            "Trimmed; as the club's app allows: 1 to 15 characters, no control characters, once per dienst.",
                        extra: ["pattern": .string("\\S")]
                    )
                ], description: "Body of POST /v1/diensten/{id}/volunteers."),
            "TaskCreated": S.object(
                [
                    "task": S.object([
                        "id": S.type("string", description: "Tickedify's id of the new task."),
                        "title": S.type("string", description: "The title as stored (trimmed)."),
                        "list": S.enumeration(["inbox"]),
                    ])
                ], description: "Answer of POST /v1/tasks."),
            "EventAnswer": S.object(
                ["event": S.ref("Event")], description: "Answer of POST /v1/events and PUT /v1/events/{id}."),
            "EventDeleted": S.object(
                [
                    "deleted": S.object(["id": S.type("string")])
                ], description: "Answer of DELETE /v1/events/{id}."),
            "Capture": S.described(
                S.object(
                    [
                        "id": S.type("string", description: "PRSNL's id of the new item."),
                        "status": S.type("string", description: "PRSNL's processing status, `pending` at first."),
                        "message": S.nullable(
                            "string", description: "PRSNL's message, e.g. \"Item capture initiated\"."),
                        "duplicate_info": S.described(
                            JSONSchema.any, "PRSNL's duplicate information (null for a new item)."),
                        "url": S.nullable("string", description: "The URL sent (null for a note)."),
                        "title": S.nullable("string", description: "The title sent (null when none)."),
                        "content_type": S.nullable("string", description: "The content type sent."),
                        "tags": S.array(S.type("string"), description: "The tags sent."),
                    ], required: ["id", "status", "url", "title", "content_type", "tags"]
                ).settingAdditionalProperties(true),
                "PRSNL's acknowledgement of a capture as it sent it (more fields may come from PRSNL), with what was sent beside it."
            ),
            "CaptureAccepted": S.object(["capture": S.ref("Capture")], description: "Answer of POST /v1/captures."),
            "FoodLogCreated": S.object(
                [
                    "food_log": S.ref("FoodLog"),
                    "date": S.type("string", format: "date", description: "The local day the entry counts for."),
                ], description: "Answer of POST /v1/food-logs."),
            "DienstAnswer": S.object(
                ["dienst": S.ref("Dienst")],
                description:
                    "Answer of POST /v1/diensten/{id}/volunteers and DELETE /v1/diensten/{id}/volunteers/{name}."
            ),
        ]
    }
}

extension JSONValue {
    /// An object schema with `additionalProperties` set.
    func settingAdditionalProperties(_ allowed: Bool) -> JSONValue {
        guard case .object(var fields) = self else { return self }
        fields["additionalProperties"] = .bool(allowed)
        return .object(fields)
    }
}
