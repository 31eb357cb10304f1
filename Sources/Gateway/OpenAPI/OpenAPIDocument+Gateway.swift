import Aggregation
import Backends
import Foundation
import Model
import OpenAPIKit

/// The gateway's own endpoints and their answers' schemas. `/v1/summary` and `/v1/sources` are
/// the core's keys plus what every backend's part declares (`SummaryPart.keySchemas`,
/// `SourcesPart.detailSchemas`).
extension OpenAPIDocument {
    static func gatewayOperation(
        _ operationID: String, summary: String, description: String? = nil,
        parameters: OpenAPI.Parameter.Array = [], responses: OpenAPI.Response.Map
    ) -> OpenAPI.Operation {
        var responses = responses
        responses[.default] = responseRef("Error")
        return OpenAPI.Operation(
            tags: ["gateway"], summary: summary, description: description, operationId: operationID,
            parameters: parameters, responses: responses)
    }

    /// A 200 whose body is text of `contentType` (metrics, the event stream).
    static func textResponse(_ description: String, contentType: OpenAPI.ContentType) -> OpenAPI.Response {
        OpenAPI.Response(
            description: description, headers: requestIDHeader,
            content: [contentType: .b(OpenAPI.Content(schema: .string))])
    }

    static func jsonResponse(_ description: String, _ schema: JSONSchema, headers: OpenAPI.Header.Map? = nil)
        -> Either<OpenAPI.Reference<OpenAPI.Response>, OpenAPI.Response>
    {
        .b(
            OpenAPI.Response(
                description: description, headers: headers ?? requestIDHeader, content: jsonContent(schema)))
    }

    /// One Server-Sent Event of `/v1/stream`: its name and its JSON data (as text).
    static let streamEventSchema = JSONSchema.object(
        properties: [
            "event": .string(allowedValues: ["hello", "change", "heartbeat"]),
            "data": .string(contentMediaType: .json), "id": .string(required: false),
            "retry": .integer(required: false),
        ])

    static var gatewayOperations: [String: OpenAPI.Operation] {
        [
            "/healthz": gatewayOperation(
                "getHealthz",
                summary:
                    "Liveness: the process answers and its heartbeat (event loops and task executor running work) "
                    + "proved itself within the last four seconds.",
                responses: [
                    .status(code: 200): jsonResponse("Alive.", health.reference),
                    .status(code: 503): jsonResponse(
                        "`stalled`: the heartbeat has stopped; work queued on the gateway does not run.",
                        ErrorBody.schemaComponent.reference),
                ]),
            "/readyz": gatewayOperation(
                "getReadyz",
                summary:
                    "Readiness: config, routes and cache checked; whether storage takes writes; the config's reloads.",
                responses: [
                    .status(code: 200): jsonResponse(
                        "Ready (or degraded: serving while the state folder takes no writes or after a failed reload).",
                        readiness.reference),
                    .status(code: 503): jsonResponse(
                        "Not ready; checks says which check failed.", readiness.reference),
                ]),
            "/metrics": gatewayOperation(
                "getMetrics", summary: "Prometheus metrics.",
                description: "The Prometheus text exposition format (version 0.0.4).",
                responses: [.status(code: 200): .b(textResponse("The metrics.", contentType: .txt))]),
            "/openapi.json": gatewayOperation(
                "getOpenAPI", summary: "This document.",
                description: "OpenAPI 3.1, generated at startup from the loaded route files.",
                responses: [
                    .status(code: 200): jsonResponse(
                        "The OpenAPI document.",
                        .object(
                            properties: ["openapi": .fragment, "info": .fragment, "paths": .fragment]))
                ]),
            "/v1/stream": gatewayOperation(
                "getStream", summary: "Server-Sent Events: a message whenever a cached section changes.",
                description:
                    "Events: `hello` on connect (`{\"profile\"}`), `change` whenever a cached section of the profile "
                    + "changes (`{\"kind\":\"updated\"|\"failed\"|\"invalidated\",\"operation\"}`), `heartbeat` every 15 s "
                    + "(`{\"time\"}`). `retry: 2000` asks browsers to reconnect after two seconds.",
                responses: [
                    .status(code: 200): .b(
                        OpenAPI.Response(
                            description: "The event stream; it ends when the gateway shuts down. Its schema describes "
                                + "one event (what an SSE client hands over), as OpenAPI 3.2's `itemSchema` does.",
                            headers: requestIDHeader,
                            content: [.eventStream: .b(OpenAPI.Content(schema: streamEventSchema))]))
                ]),
            GatewayApplication.householdStreamPath: gatewayOperation(
                "getHouseholdStream",
                summary: "Server-Sent Events: a message whenever a cached section of any household member changes.",
                description:
                    "As /v1/stream, for every member of the household: each `change` also names its `member` (the "
                    + "member's id). Needs the `household` scope when the gateway has client keys; 404 `no_household` "
                    + "without a household in the config.",
                responses: [
                    .status(code: 200): .b(
                        OpenAPI.Response(
                            description: "The event stream; it ends when the gateway shuts down.",
                            headers: requestIDHeader,
                            content: [.eventStream: .b(OpenAPI.Content(schema: streamEventSchema))])),
                    .status(code: 404): .b(
                        OpenAPI.Response(
                            description: "`no_household`: the config names no household.", headers: requestIDHeader,
                            content: jsonContent(ErrorBody.schemaComponent.reference))),
                ]),
            HouseholdSummaryService.path: householdSummaryOperation,
            "/v1/summary": gatewayOperation(
                "getSummary", summary: "Flat scalars of the day for home automation (Home Assistant).",
                description: "Always JSON with 200, even when every backend is down: the scalars are then null and "
                    + "`complete` false. Lists are under named objects, for `json_attributes_path`.",
                parameters: [
                    .reference(.component(named: "IfNoneMatch")), .reference(.component(named: "CacheControl")),
                ],
                responses: [
                    .status(code: 200): jsonResponse("The summary.", summary.reference, headers: cachingHeaders),
                    .status(code: 304): .b(notModified),
                ]),
            CalendarFeedService.path: gatewayOperation(
                "getCalendarFeed",
                summary: "The household's day as an iCalendar (RFC 5545) feed, for a phone's calendar app.",
                description:
                    "Events of every calendar, planned tasks and blocked slots (Tickedify, up to two weeks ahead), and "
                    + "club shifts, from `from` to `to` (default: a week back, 60 days ahead; at most 366 days), timed in "
                    + "the household's zone with its VTIMEZONE. UIDs are stable, so an edit updates the same entry. "
                    + "Calendar apps cannot send headers: a client's `feed_key` goes as `?key=` and reads only this "
                    + "feed. A weak ETag stays equal while the entries do; `X-Daygate-Missing` names sections that "
                    + "could not be read.",
                parameters: [
                    .b(
                        .query(
                            name: "from", schema: .string(format: .date),
                            description: "First local day (YYYY-MM-DD). Default: today minus 7 days.")),
                    .b(
                        .query(
                            name: "to", schema: .string(format: .date),
                            description: "Last local day, inclusive. Default: today plus 60 days.")),
                    .b(
                        .query(
                            name: "key", schema: .string(minLength: 16),
                            description: "The client's feed key (`clients[].feed_key`), instead of Authorization.")),
                    .reference(.component(named: "IfNoneMatch")),
                ],
                responses: [
                    .status(code: 200): .b(
                        OpenAPI.Response(
                            description: "The feed.",
                            headers: ["ETag": headerRef("ETag"), "X-Request-Id": headerRef("X-Request-Id")],
                            content: [
                                OpenAPI.ContentType(rawValue: "text/calendar")!: .b(OpenAPI.Content(schema: .string))
                            ])),
                    .status(code: 304): .b(
                        OpenAPI.Response(
                            description: "Not Modified: the If-None-Match ETag still matches (no body).",
                            headers: ["ETag": headerRef("ETag")])),
                    .status(code: 400): responseRef("BadRequest"),
                ]),
            "/v1/me": gatewayOperation(
                "getMe",
                summary: "Who the key is: its profile and scopes, the household it may read, the gateway's id.",
                description: "For a client that sets itself up (Home Assistant's integration). The gateway's `id` is "
                    + "made once with its state folder and stays across restarts and address changes.",
                responses: [
                    .status(code: 200): jsonResponse("The key's identity.", me.reference)
                ]),
            "/v1/sources": gatewayOperation(
                "getSources",
                summary: "Each backend: configured, last success and error, circuit, call and cache counters.",
                responses: [
                    .status(code: 200): jsonResponse(
                        "The state of every backend for the profile.", sources.reference)
                ]),
        ]
    }

    /// The gateway's own schemas (with what they use).
    static var gatewayComponents: [SchemaComponent] { [health, readiness, summary, householdSummary, sources, me] }

    static let me = SchemaComponent(
        "Me",
        schema: .closedObject(
            [
                "gateway": .closedObject([
                    "id": .string(description: "32 hexadecimal digits, made once with the state folder."),
                    "version": .string, "timezone": .string(description: "The household's IANA timezone."),
                ]),
                "client": .one(
                    of: [.closedObject(["name": .string]), .null()],
                    core: .init(description: "The key's name in `clients:`; null on a gateway without client keys.")),
                "profile": .string,
                "scopes": .array(items: .enumeration(ClientScope.allCases.map(\.rawValue))),
                "household": .one(
                    of: [
                        .closedObject([
                            "name": .string(nullable: true),
                            "members": .array(
                                items: .closedObject([
                                    "id": .string, "name": .string, "color": .string, "profile": .string,
                                ])),
                        ]), .null(),
                    ],
                    core: .init(description: "Null without the `household` scope or without a household in the config.")
                ),
            ], description: "Who the asking key is."))

    static let health = SchemaComponent("Health", schema: .closedObject(["status": .enumeration(["ok"])]))

    static let storage = SchemaComponent(
        "Storage",
        schema: .closedObject(
            [
                "writable": .boolean(description: "Whether the last write to the state folder succeeded."),
                "last_failure": .one(
                    of: [
                        .closedObject(["reason": .string, "at": .string(format: .dateTime)]), .null(),
                    ], core: .init()),
                "last_success": .string(format: .dateTime, nullable: true),
                "temporary": .string(
                    nullable: true,
                    description: "Why a temporary folder stands in for the state folder (lost at the next start)."),
            ], description: "Whether the state folder (cache, vault, idempotency keys) takes writes."))

    static let configState = SchemaComponent(
        "ConfigState",
        schema: .closedObject(
            [
                "file": .string(nullable: true, description: "The config file the gateway was started with."),
                "loaded_at": .string(format: .dateTime, description: "When the config now serving was read."),
                "generation": .integer(
                    description: "1 at start, one more with each applied reload.", minimum: (1, exclusive: false)),
                "last_reload": .one(
                    of: [
                        .closedObject([
                            "at": .string(format: .dateTime),
                            "result": .enumeration(
                                ["applied", "failed"],
                                description: "failed: nothing changed, the config before it serves on."),
                            "errors": .array(
                                items: .closedObject([
                                    "file": .string(nullable: true), "line": .integer(nullable: true),
                                    "key": .string(nullable: true), "message": .string,
                                ])),
                            "changes": .array(description: "What the reload changed.", items: .string),
                        ]), .null(),
                    ], core: .init()),
                "restart_required": .array(
                    description: "Settings the file changed that take effect only at the next start.",
                    items: .closedObject(["setting": .string, "running": .string, "configured": .string])),
            ], description: "The config serving now and how the last reload (SIGHUP) went."))

    static let readiness = SchemaComponent(
        "Readiness", uses: [storage, configState],
        schema: .closedObject([
            "status": .enumeration(
                ["ready", "degraded", "not_ready"],
                description:
                    "degraded: serving, but the state folder takes no writes (see storage) or the last reload failed (see config)."
            ),
            "checks": .map(
                .boolean,
                description:
                    "Each check (config: a valid config serves; routes; cache) and whether it passed."),
            "storage": storage.reference,
            "config": configState.reference,
        ]))

    static let summaryEvent = SchemaComponent(
        "SummaryEvent",
        schema: .closedObject([
            "title": .string,
            "start": .string(format: .dateTime),
            "end": .string(format: .dateTime),
            "all_day": .boolean,
            "location": .string(nullable: true),
            "status": .string,
        ]))

    /// `/v1/summary`: the core's keys (the day, the calendar keys every calendar backend feeds,
    /// the flags, the sections) and every part's keys, all always present.
    static var summary: SchemaComponent {
        var properties: [String: JSONSchema] = [
            "date": .string(format: .date),
            "timezone": .string(description: "The configured IANA timezone."),
            "next_event_title": .string(nullable: true),
            "next_event_start": .string(format: .dateTime, nullable: true),
            "stale": .boolean,
            "complete": .boolean,
            "age_seconds": .integer(minimum: (0, exclusive: false)),
            "events": .closedObject(["count": .integer, "items": .array(items: summaryEvent.reference)]),
            "sections": .map(SectionReport.schemaComponent.reference, description: "Per section it was built from."),
        ]
        var uses = [summaryEvent, SectionReport.schemaComponent]
        for part in BackendCatalog.summaryParts {
            properties.merge(part.keySchemas) { core, _ in core }
            uses += part.keyComponents
        }
        return SchemaComponent(
            "Summary", uses: uses,
            schema: .closedObject(
                properties, description: "The day as flat scalars (null when unknown) and lists under named objects."))
    }

    static let cacheCounters = SchemaComponent(
        "CacheCounters",
        schema: .closedObject(
            [
                "hits": .integer, "misses": .integer, "stale_serves": .integer, "collapsed": .integer,
                "fetches": .integer, "fetch_failures": .integer, "timeouts": .integer,
            ], description: "Cache counters of the backend's operations since the gateway started."))

    /// One backend's line of `/v1/sources`: the core's keys, its health, and the keys its part
    /// may add (not required: other backends' lines lack them).
    static var sourceStatus: SchemaComponent {
        var properties = SourceHealth.schemaProperties
        properties["configured"] = .boolean
        properties["cache"] = cacheCounters.reference
        let required = Array(properties.keys)
        var uses = [SourceHealth.lastErrorSchemaComponent, cacheCounters]
        for part in BackendCatalog.sourcesParts {
            properties.merge(part.detailSchemas) { core, _ in core }
            uses += part.detailComponents
        }
        return SchemaComponent("SourceStatus", uses: uses, schema: .closedObject(properties, required: required))
    }

    static var sources: SchemaComponent {
        let status = sourceStatus
        return SchemaComponent(
            "Sources", uses: [storage, status],
            schema: .closedObject([
                "profile": .string,
                "generated_at": .string(format: .dateTime),
                "storage": storage.reference,
                "sources": .closedObject(
                    Dictionary(uniqueKeysWithValues: backends.map { ($0, status.reference) }),
                    description: "Every backend, configured or not."),
            ]))
    }
}
