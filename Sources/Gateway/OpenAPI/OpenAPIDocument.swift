import Aggregation
import Backends
import Foundation
import Model

/// `GET /openapi.json`: an OpenAPI 3.1 description of the whole unified API, built once at
/// startup. Route endpoints come from the loaded route files (users add their own), with
/// their parameters, and an answer schema made of the sections' operation bodies
/// (`OperationSchemas`); the gateway's own endpoints are described here by hand.
public enum OpenAPIDocument {
    public static let openAPIVersion = "3.1.0"
    /// The backends /v1/sources reports on.
    public static var backends: [String] { BackendCatalog.names }
    /// The example of every date parameter.
    public static let exampleDate = "2026-11-22"

    /// The document as JSON, keys sorted.
    public static func make(routes: [Route]) -> Data {
        (try? JSONCoding.encode(value(routes: routes))) ?? Data("{}".utf8)
    }

    public static func value(routes: [Route]) -> JSONValue {
        var paths: [String: JSONValue] = [:]
        var schemas = OperationSchemas.components
        for (name, schema) in gatewaySchemas { schemas[name] = schema }
        for (name, schema) in writeSchemas { schemas[name] = schema }

        var usedNames = Set<String>()
        for route in routes.sorted(by: { $0.path < $1.path }) {
            var base = camelName(route.path)
            if base.isEmpty { base = "Route" }
            var name = base
            var counter = 2
            while usedNames.contains(name) || schemas["\(name)Answer"] != nil {
                name = "\(base)\(counter)"
                counter += 1
            }
            usedNames.insert(name)
            schemas["\(name)Answer"] = answerSchema(route)
            paths[route.path] = .object([
                "get": routeOperation(route, operationID: "get\(name)", answer: "\(name)Answer")
            ])
        }
        for (path, item) in fixedPaths { paths[path] = item }
        for (path, operations) in writePaths {
            var item = paths[path]?.objectValue ?? [:]
            for (method, operation) in operations { item[method] = operation }
            paths[path] = .object(item)
        }
        paths = secured(paths)

        return .object([
            "openapi": .string(openAPIVersion),
            "info": .object([
                "title": .string("daygate unified API"),
                "version": .string("1"),
                "description": .string(
                    "One JSON API over a household's services (Tickedify, 8alls, Kantine Koning, FitIQ, PRSNL). "
                        + "Every endpoint under /v1 except /v1/summary, /v1/sources and /v1/stream comes from a route file "
                        + "(routes/*.yaml): its answer carries each parameter's value, complete/stale/age_seconds, per-section "
                        + "metadata under `sections`, and one key per section with that operation's body (null when the "
                        + "section has no data; absent when the profile has not configured its backend). Dates and times are "
                        + "in the gateway's configured timezone. This document is generated at startup from the loaded routes."
                        + securityDescription
                ),
            ]),
            "tags": .array([
                .object([
                    "name": .string("routes"), "description": .string("Aggregated endpoints, one per route file."),
                ]),
                .object(["name": .string("gateway"), "description": .string("Endpoints the gateway serves itself.")]),
                .object([
                    "name": .string("writes"),
                    "description": .string("Changes passed to a backend; the cached sections they affect are dropped."),
                ]),
            ]),
            "paths": .object(paths),
            "components": .object([
                "schemas": .object(schemas),
                "headers": .object(headers.merging(writeHeaders) { mine, _ in mine }),
                "parameters": .object(requestHeaderParameters.merging(writeParameters) { mine, _ in mine }),
                "responses": .object(sharedResponses.merging(securityAndWriteResponses) { mine, _ in mine }),
                "securitySchemes": .object(securitySchemes),
            ]),
        ])
    }

    // MARK: - Routes

    static func routeOperation(_ route: Route, operationID: String, answer: String) -> JSONValue {
        let file = (route.file as NSString).lastPathComponent
        var description = route.description ?? "GET \(route.path)"
        description += "\n\nSections (each absent when the profile has not configured its backend):"
        for section in route.sections {
            description += "\n- `\(section.name)`: \(section.operation.name) (\(section.operation.backend))"
        }
        description += "\n\nDeadline \(UpstreamHTTP.describe(route.deadline)); route file \(file)."
        var parameters = route.parameters.map { parameter($0, of: route) }
        parameters.append(JSONSchema.parameterRef("IfNoneMatch"))
        parameters.append(JSONSchema.parameterRef("CacheControl"))
        let answerContent: JSONValue = .object(["application/json": .object(["schema": JSONSchema.ref(answer)])])
        return .object([
            "operationId": .string(operationID),
            "tags": .array([.string("routes")]),
            "summary": .string(summary(route.description) ?? "GET \(route.path)"),
            "description": .string(description),
            "parameters": .array(parameters),
            "responses": .object([
                "200": .object([
                    "description": .string("At least one section has data (fresh or stale)."),
                    "headers": cachingHeaders,
                    "content": answerContent,
                ]),
                "304": notModified,
                "400": responseRef("BadRequest"),
                "502": .object([
                    "description": .string("No section has data and at least one failed; the same JSON."),
                    "headers": cachingHeaders,
                    "content": answerContent,
                ]),
                "504": .object([
                    "description": .string("Every section timed out; the same JSON."),
                    "headers": cachingHeaders,
                    "content": answerContent,
                ]),
                "default": responseRef("Error"),
            ]),
        ])
    }

    /// The first sentence of a description.
    static func summary(_ description: String?) -> String? {
        guard let description, !description.isEmpty else { return nil }
        if let range = description.range(of: ". ") {
            return String(description[..<range.lowerBound]) + "."
        }
        return description
    }

    static func parameter(_ parameter: RouteParameter, of route: Route) -> JSONValue {
        var schema: [String: JSONValue]
        var example: JSONValue
        switch parameter.kind {
        case .date:
            schema = ["type": .string("string"), "format": .string("date")]
            example = .string(exampleDate)
        case .int:
            schema = ["type": .string("integer")]
            if let min = parameter.min { schema["minimum"] = .number(Double(min)) }
            if let max = parameter.max { schema["maximum"] = .number(Double(max)) }
            example = .number(Double(parameter.min ?? parameter.max.map { Swift.min($0, 1) } ?? 1))
        case .string:
            schema = ["type": .string("string"), "maxLength": .number(Double(parameter.maxLength))]
            if let values = parameter.values {
                schema["enum"] = .array(values.map(JSONValue.string))
                example = .string(values.first ?? "")
            } else {
                example = .string(String("example".prefix(parameter.maxLength)))
            }
        case .bool:
            schema = ["type": .string("boolean")]
            example = .bool(true)
        }

        var text = parameter.description.map { $0.hasSuffix(".") ? $0 : $0 + "." } ?? ""
        var object: [String: JSONValue] = ["name": .string(parameter.name), "in": .string("query")]
        let unless =
            parameter.defaultUnlessGiven.isEmpty
            ? "" : ", unless \(parameter.defaultUnlessGiven.joined(separator: " or ")) is given"
        switch parameter.defaultValue {
        case .value(let value)?:
            schema["default"] = json(value)
            example = json(value)
            text += " Default: \(value.description)\(unless)."
        case .today(let offset)?:
            let word = offset == 0 ? "today" : offset > 0 ? "today+\(offset)" : "today\(offset)"
            object["x-default"] = .string(word)
            let days =
                offset == 0 ? "" : " \(offset > 0 ? "plus" : "minus") \(abs(offset)) day\(abs(offset) == 1 ? "" : "s")"
            text += " Default: today in the gateway's timezone\(days)\(unless)."
        case nil:
            break
        }
        object["schema"] = .object(schema)
        object["example"] = example
        object["required"] = .bool(isRequired(parameter, of: route))
        object["description"] = .string(text.trimmingCharacters(in: .whitespaces))
        return .object(object)
    }

    /// A parameter without a default that some section passes to an argument its operation requires.
    static func isRequired(_ parameter: RouteParameter, of route: Route) -> Bool {
        guard parameter.defaultValue == nil else { return false }
        return route.sections.contains { section in
            section.arguments.contains { argument, binding in
                binding == .parameter(parameter.name)
                    && section.operation.arguments.contains { $0.name == argument && $0.required }
            }
        }
    }

    static func json(_ value: ArgumentValue) -> JSONValue {
        switch value {
        case .date(let date): .string(date.description)
        case .int(let number): .number(Double(number))
        case .string(let text): .string(text)
        case .bool(let flag): .bool(flag)
        }
    }

    /// The aggregate answer of one route: parameters echoed as strings, the summary flags,
    /// per-section metadata, and each section's body.
    static func answerSchema(_ route: Route) -> JSONValue {
        var properties: [String: JSONValue] = [:]
        var required = ["complete", "stale", "age_seconds", "sections"]
        for parameter in route.parameters {
            var schema: [String: JSONValue] = ["type": .string("string")]
            switch parameter.kind {
            case .date: schema["format"] = .string("date")
            case .int: schema["pattern"] = .string("^-?[0-9]+$")
            case .string:
                if let values = parameter.values { schema["enum"] = .array(values.map(JSONValue.string)) }
            case .bool: schema["enum"] = .array([.string("true"), .string("false")])
            }
            schema["description"] = .string(
                "The value of \(parameter.name) the answer is for (given or default), as a string.")
            properties[parameter.name] = .object(schema)
            if parameter.defaultValue != nil, parameter.defaultUnlessGiven.isEmpty {
                required.append(parameter.name)
            }
        }
        properties["complete"] = JSONSchema.type(
            "boolean", description: "Every section is ok (fresh, or stale while revalidating).")
        properties["stale"] = JSONSchema.type("boolean", description: "Some section serves data past its freshness.")
        properties["age_seconds"] = JSONSchema.type(
            "integer", description: "Age of the oldest data in the answer.", extra: ["minimum": .number(0)]
        )
        var reports: [String: JSONValue] = [:]
        for section in route.sections {
            reports[section.name] = JSONSchema.ref("SectionReport")
            // A merged section's list joins its target's key; it has no key of its own.
            guard section.mergeInto == nil else { continue }
            let joining = route.sections.filter { $0.mergeInto == section.name }.map(\.operation.name)
            properties[section.name] = .object([
                "anyOf": .array([OperationSchemas.body(for: section.operation.name), JSONSchema.null]),
                "description": .string(
                    "Section \(section.name): the body of \(section.operation.name); null when the section has no data; "
                        + "absent when the profile has not configured \(section.operation.backend)."
                        + (joining.isEmpty
                            ? ""
                            : " The lists of \(joining.joined(separator: ", ")) join it, ordered by start.")
                ),
            ])
        }
        properties["sections"] = JSONSchema.object(
            reports, required: [],
            description: "Per section (configured backends only): status, cache outcome, age, backend, duration."
        )
        return JSONSchema.object(
            properties, required: required,
            description: "The answer of \(route.path): 200, or 502/504 when no section has data."
        )
    }

    static func camelName(_ path: String) -> String {
        var parts = path.split(whereSeparator: { "/-_".contains($0) }).map(String.init)
        if parts.first == "v1" { parts.removeFirst() }
        return parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    // MARK: - Headers and shared responses

    static let headers: [String: JSONValue] = [
        "ETag": header(
            "A strong validator over the body; send it back in If-None-Match to get a 304.",
            schema: JSONSchema.type("string")),
        "Cache-Control": header(
            "`max-age=N` (the smallest remaining freshness of the sections) on complete, fresh answers; `no-cache` otherwise.",
            schema: JSONSchema.type("string")
        ),
        "Age": header(
            "Seconds since the oldest data in the answer was fetched.",
            schema: JSONSchema.type("integer", extra: ["minimum": .number(0)])),
        "Cache-Status": header(
            "RFC 9211: how the gateway's cache handled each section, e.g. `daygate; hit; ttl=42; key=events`.",
            schema: JSONSchema.type("string")
        ),
        "Server-Timing": header("Time spent per section, e.g. `events;dur=0.4`.", schema: JSONSchema.type("string")),
        "X-Request-Id": header(
            "The request's id (the client's X-Request-Id when it is sane, else a new one); also in the gateway's log.",
            schema: JSONSchema.type("string")
        ),
    ]

    static func header(_ description: String, schema: JSONValue) -> JSONValue {
        .object(["description": .string(description), "schema": schema])
    }

    static func headerRef(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/headers/\(name)")])
    }

    static func responseRef(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/responses/\(name)")])
    }

    static var cachingHeaders: JSONValue {
        .object(
            Dictionary(
                uniqueKeysWithValues: ["ETag", "Cache-Control", "Age", "Cache-Status", "Server-Timing", "X-Request-Id"]
                    .map {
                        ($0, headerRef($0))
                    }))
    }

    static var notModified: JSONValue {
        .object([
            "description": .string("Not Modified: the If-None-Match ETag still matches the answer (no body)."),
            "headers": cachingHeaders,
        ])
    }

    static let requestHeaderParameters: [String: JSONValue] = [
        "IfNoneMatch": .object([
            "name": .string("If-None-Match"), "in": .string("header"), "required": .bool(false),
            "description": .string("An ETag of an earlier answer; 304 without a body when the answer is unchanged."),
            "schema": JSONSchema.type("string"),
        ]),
        "CacheControl": .object([
            "name": .string("Cache-Control"), "in": .string("header"), "required": .bool(false),
            "description": .string(
                "`no-cache` (or `max-age=0`) makes the gateway refetch every section from its backend."),
            "schema": JSONSchema.type("string"),
            "example": .string("no-cache"),
        ]),
    ]

    static var sharedResponses: [String: JSONValue] {
        let error: JSONValue = .object(["application/json": .object(["schema": JSONSchema.ref("Error")])])
        let requestID: JSONValue = .object(["X-Request-Id": headerRef("X-Request-Id")])
        return [
            "BadRequest": .object([
                "description": .string(
                    "Bad input: a malformed or out-of-range value, an unknown or repeated parameter "
                        + "(names starting with _ are ignored). Code bad_parameter."
                ),
                "headers": requestID,
                "content": error,
            ]),
            "Error": .object([
                "description": .string(
                    "Any other error (404 not_found for unknown paths, 405 method_not_allowed, 413 body_too_large, 500): JSON of the same shape."
                ),
                "headers": requestID,
                "content": error,
            ]),
        ]
    }

    // MARK: - The gateway's own endpoints

    static func jsonContent(_ schema: JSONValue) -> JSONValue {
        .object(["application/json": .object(["schema": schema])])
    }

    /// A 200 whose body is text of `mediaType` (metrics, the event stream).
    static func textResponse(_ description: String, mediaType: String, headers: JSONValue) -> JSONValue {
        .object([
            "description": .string(description), "headers": headers,
            "content": .object([mediaType: .object(["schema": JSONSchema.type("string")])]),
        ])
    }

    static func fixed(
        _ operationID: String, summary: String, description: String? = nil, parameters: [JSONValue] = [],
        responses: [String: JSONValue]
    ) -> JSONValue {
        var operation: [String: JSONValue] = [
            "operationId": .string(operationID),
            "tags": .array([.string("gateway")]),
            "summary": .string(summary),
            "responses": .object(responses.merging(["default": responseRef("Error")]) { mine, _ in mine }),
        ]
        if let description { operation["description"] = .string(description) }
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        return .object(["get": .object(operation)])
    }

    static var fixedPaths: [String: JSONValue] {
        let requestID: JSONValue = .object(["X-Request-Id": headerRef("X-Request-Id")])
        return [
            "/healthz": fixed(
                "getHealthz", summary: "Liveness: the process answers.",
                responses: [
                    "200": .object([
                        "description": .string("Alive."), "headers": requestID,
                        "content": jsonContent(JSONSchema.ref("Health")),
                    ])
                ]),
            "/readyz": fixed(
                "getReadyz", summary: "Readiness: config, routes and cache checked; whether storage takes writes.",
                responses: [
                    "200": .object([
                        "description": .string("Ready (or degraded: serving while the state folder takes no writes)."),
                        "headers": requestID,
                        "content": jsonContent(JSONSchema.ref("Readiness")),
                    ]),
                    "503": .object([
                        "description": .string("Not ready; checks says which check failed."), "headers": requestID,
                        "content": jsonContent(JSONSchema.ref("Readiness")),
                    ]),
                ]
            ),
            "/metrics": fixed(
                "getMetrics", summary: "Prometheus metrics.",
                description: "The Prometheus text exposition format (version 0.0.4).",
                responses: [
                    "200": textResponse("The metrics.", mediaType: "text/plain", headers: requestID)
                ]
            ),
            "/openapi.json": fixed(
                "getOpenAPI", summary: "This document.",
                description: "OpenAPI 3.1, generated at startup from the loaded route files.",
                responses: [
                    "200": .object([
                        "description": .string("The OpenAPI document."), "headers": requestID,
                        "content": jsonContent(
                            .object([
                                "type": .string("object"),
                                "required": .array([.string("openapi"), .string("info"), .string("paths")]),
                            ])),
                    ])
                ]
            ),
            "/v1/stream": fixed(
                "getStream", summary: "Server-Sent Events: a message whenever a cached section changes.",
                description:
                    "Events: `hello` on connect (`{\"profile\"}`), `change` whenever a cached section of the profile "
                    + "changes (`{\"kind\":\"updated\"|\"failed\"|\"invalidated\",\"operation\"}`), `heartbeat` every 15 s "
                    + "(`{\"time\"}`). `retry: 2000` asks browsers to reconnect after two seconds.",
                responses: [
                    "200": textResponse(
                        "The event stream; it ends when the gateway shuts down.", mediaType: "text/event-stream",
                        headers: requestID)
                ]
            ),
            "/v1/summary": fixed(
                "getSummary", summary: "Flat scalars of the day for home automation (Home Assistant).",
                description: "Always JSON with 200, even when every backend is down: the scalars are then null and "
                    + "`complete` false. Lists are under named objects, for `json_attributes_path`.",
                parameters: [JSONSchema.parameterRef("IfNoneMatch"), JSONSchema.parameterRef("CacheControl")],
                responses: [
                    "200": .object([
                        "description": .string("The summary."), "headers": cachingHeaders,
                        "content": jsonContent(JSONSchema.ref("Summary")),
                    ]),
                    "304": notModified,
                ]
            ),
            "/v1/sources": fixed(
                "getSources",
                summary: "Each backend: configured, last success and error, circuit, call and cache counters.",
                responses: [
                    "200": .object([
                        "description": .string("The state of every backend for the profile."), "headers": requestID,
                        "content": jsonContent(JSONSchema.ref("Sources")),
                    ])
                ]
            ),
        ]
    }

    /// Schemas of the gateway's own answers.
    static var gatewaySchemas: [String: JSONValue] {
        typealias S = JSONSchema
        let string = S.type("string")
        let nullableString = S.nullable("string")
        let nullableDateTime = S.nullable("string", format: "date-time")
        let integer = S.type("integer")
        let nullableInteger = S.nullable("integer")
        let nullableNumber = S.nullable("number")
        let circuit = S.enumeration(["closed", "open", "half_open"])
        let calls = S.type("integer", description: "Upstream calls since the gateway started.")
        let errors = S.type("integer", description: "Failed upstream calls since the gateway started.")
        return [
            "Health": S.object(["status": S.enumeration(["ok"])]),
            "Readiness": S.object([
                "status": S.enumeration(
                    ["ready", "degraded", "not_ready"],
                    description: "degraded: serving, but the state folder takes no writes (see storage)."
                ),
                "checks": S.map(
                    S.type("boolean"), description: "Each check (config, routes, cache) and whether it passed."),
                "storage": S.ref("Storage"),
            ]),
            "Storage": S.object(
                [
                    "writable": S.type("boolean", description: "Whether the last write to the state folder succeeded."),
                    "last_failure": .object([
                        "oneOf": .array([
                            S.object(["reason": string, "at": S.type("string", format: "date-time")]),
                            .object(["type": .string("null")]),
                        ])
                    ]),
                    "last_success": S.nullable("string", format: "date-time"),
                    "temporary": S.nullable(
                        "string",
                        description: "Why a temporary folder stands in for the state folder (lost at the next start)."
                    ),
                ], description: "Whether the state folder (cache, vault, idempotency keys) takes writes."),
            "SummaryEvent": S.object([
                "title": string,
                "start": S.type("string", format: "date-time"),
                "end": S.type("string", format: "date-time"),
                "all_day": S.type("boolean"),
                "location": nullableString,
                "status": string,
            ]),
            "SummaryPlanItem": S.object([
                "title": string,
                "hour": integer,
                "kind": S.enumeration(["task", "blocked", "break"]),
                "duration_minutes": nullableInteger,
            ]),
            "SummaryDienst": S.object([
                "start": S.type("string", format: "date-time"),
                "end": S.type("string", format: "date-time"),
                "club": string,
                "team": nullableString,
                "role": string,
                "open_spots": integer,
                "location": nullableString,
            ]),
            "Summary": S.object(
                [
                    "date": S.type("string", format: "date"),
                    "timezone": S.type("string", description: "The configured IANA timezone."),
                    "tasks_planned": nullableInteger,
                    "tasks_done": nullableInteger,
                    "next_event_title": nullableString,
                    "next_event_start": nullableDateTime,
                    "next_dienst_start": nullableDateTime,
                    "next_dienst_club": nullableString,
                    "kcal_today": nullableInteger,
                    "kcal_remaining": nullableInteger,
                    "stale": S.type("boolean"),
                    "complete": S.type("boolean"),
                    "age_seconds": S.type("integer", extra: ["minimum": .number(0)]),
                    "events": S.object(["count": integer, "items": S.array(S.ref("SummaryEvent"))]),
                    "plan": S.object(["count": integer, "items": S.array(S.ref("SummaryPlanItem"))]),
                    "tasks": S.object([
                        "planned": nullableInteger,
                        "done": nullableInteger,
                        "open_titles": S.array(string),
                        "done_titles": S.array(string),
                    ]),
                    "diensten": S.object(["count": integer, "items": S.array(S.ref("SummaryDienst"))]),
                    "nutrition": S.object([
                        "calories": nullableInteger,
                        "goal_calories": nullableInteger,
                        "remaining_calories": nullableInteger,
                        "protein_g": nullableNumber,
                        "carbs_g": nullableNumber,
                        "fat_g": nullableNumber,
                    ]),
                    "sections": S.map(S.ref("SectionReport"), description: "Per section it was built from."),
                ], description: "The day as flat scalars (null when unknown) and lists under named objects."),
            "SourceError": S.object(
                [
                    "code": string,
                    "message": string,
                    "at": S.type("string", format: "date-time"),
                ], description: "The last failure."),
            "CacheCounters": S.object(
                [
                    "hits": integer, "misses": integer, "stale_serves": integer, "collapsed": integer,
                    "fetches": integer, "fetch_failures": integer, "timeouts": integer,
                ], description: "Cache counters of the backend's operations since the gateway started."),
            "EnrollmentStatus": S.object(
                [
                    "label": string,
                    "tenant": string,
                    "role": string,
                    "season_ended": S.type("boolean"),
                    "last_success": nullableDateTime,
                    "last_error": S.nullableRef("SourceError"),
                    "circuit": circuit,
                    "circuit_open_until": nullableDateTime,
                    "retry_after_until": nullableDateTime,
                    "calls": calls,
                    "errors": errors,
                ], description: "One Kantine Koning enrollment (each has its own token and health)."),
            "CalendarSource": S.object(
                [
                    "name": string,
                    "source": string,
                    "color": S.nullable("string"),
                    "last_success": nullableDateTime,
                    "last_error": S.nullableRef("SourceError"),
                    "circuit": circuit,
                    "circuit_open_until": nullableDateTime,
                    "retry_after_until": nullableDateTime,
                    "calls": calls,
                    "errors": errors,
                ], description: "One subscribed ICS calendar (each feed is fetched on its own)."),
            "SourceStatus": S.object(
                [
                    "configured": S.type("boolean"),
                    "last_success": nullableDateTime,
                    "last_error": S.nullableRef("SourceError"),
                    "circuit": circuit,
                    "circuit_open_until": nullableDateTime,
                    "retry_after_until": nullableDateTime,
                    "calls": calls,
                    "errors": errors,
                    "cache": S.ref("CacheCounters"),
                    "enrollments": S.array(S.ref("EnrollmentStatus"), description: "Kantine Koning only."),
                    "calendars": S.array(S.ref("CalendarSource"), description: "ics only: each subscribed calendar."),
                ],
                required: [
                    "configured", "last_success", "last_error", "circuit", "circuit_open_until", "retry_after_until",
                    "calls", "errors", "cache",
                ]),
            "Sources": S.object([
                "profile": string,
                "generated_at": S.type("string", format: "date-time"),
                "storage": S.ref("Storage"),
                "sources": S.object(
                    Dictionary(uniqueKeysWithValues: backends.map { ($0, S.ref("SourceStatus")) }),
                    description: "Every backend, configured or not."
                ),
            ]),
        ]
    }
}

extension JSONSchema {
    static func parameterRef(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/parameters/\(name)")])
    }
}
