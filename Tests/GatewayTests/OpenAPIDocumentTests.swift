import Aggregation
import Backends
import Foundation
import Model
import OpenAPIKit
import Testing

@testable import Gateway

/// /openapi.json: generated from the loaded routes, every route and parameter documented,
/// every operation's body described, every reference resolvable.
@Suite struct OpenAPIDocumentTests {
    static func routes() throws -> [Route] {
        try RouteLoader(registry: .standard).load(directory: GatewayHarness.routesDir)
    }

    static func document(_ routes: [Route]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: OpenAPIDocument.make(routes: routes))
    }

    /// The document is built by the first request that asks for it, once.
    @Test func builtOnFirstRequestOnly() throws {
        let routes = try Self.routes()
        let onDemand = OpenAPIDocumentOnDemand(routes: routes)
        #expect(!onDemand.isBuilt)
        let first = onDemand.json
        #expect(onDemand.isBuilt)
        #expect(first == OpenAPIDocument.make(routes: routes))
        #expect(onDemand.json == first)
    }

    @Test func parsesAsOpenAPI31() throws {
        let data = OpenAPIDocument.make(routes: try Self.routes())
        #expect(try JSONSerialization.jsonObject(with: data) is [String: Any])
        let document = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(document["openapi"] == .string("3.1.0"))
        #expect(document["info"]?["title"]?.stringValue?.isEmpty == false)
        #expect(document["info"]?["version"]?.stringValue?.isEmpty == false)
        #expect(document["components"]?["schemas"]?["Error"] != nil)
    }

    @Test func everyRouteAppearsWithAllItsParameters() throws {
        let routes = try Self.routes()
        #expect(!routes.isEmpty)
        let document = try Self.document(routes)
        let paths = try #require(document["paths"]?.objectValue)
        let schemas = try #require(document["components"]?["schemas"]?.objectValue)
        for route in routes {
            let operation = try #require(paths[route.path]?["get"], "\(route.path) is not documented")
            let parameters = operation["parameters"]?.arrayValue ?? []
            let query = parameters.filter { $0["in"] == .string("query") }.compactMap { $0["name"]?.stringValue }
            let inPath = parameters.filter { $0["in"] == .string("path") }
            #expect(inPath.compactMap { $0["name"]?.stringValue } == route.pathParameterNames, "\(route.path)")
            #expect(inPath.allSatisfy { $0["required"] == .bool(true) }, "\(route.path): path parameters are required")
            #expect(
                Set(query) == Set(route.parameters.map(\.name)).subtracting(route.pathParameterNames),
                "\(route.path): \(query)")
            for parameter in route.parameters {
                let documented = try #require(parameters.first { $0["name"]?.stringValue == parameter.name })
                let type = documented["schema"]?["type"]?.stringValue
                switch parameter.kind {
                case .date:
                    #expect(type == "string")
                    #expect(documented["schema"]?["format"] == .string("date"))
                case .int:
                    #expect(type == "integer")
                    if let min = parameter.min { #expect(documented["schema"]?["minimum"] == .number(Double(min))) }
                    if let max = parameter.max { #expect(documented["schema"]?["maximum"] == .number(Double(max))) }
                case .string:
                    #expect(type == "string")
                    #expect(documented["schema"]?["maxLength"] == .number(Double(parameter.maxLength)))
                    if let values = parameter.values {
                        #expect(documented["schema"]?["enum"] == .array(values.map(JSONValue.string)))
                    }
                case .bool:
                    #expect(type == "boolean")
                }
                if case .value? = parameter.defaultValue {
                    #expect(documented["schema"]?["default"] != nil, "\(route.path) \(parameter.name) default")
                }
                if let description = parameter.description {
                    #expect(documented["description"]?.stringValue?.contains(description) == true)
                }
            }
            let responses = try #require(operation["responses"]?.objectValue)
            for status in ["200", "304", "400", "502", "504"] {
                #expect(responses[status] != nil, "\(route.path) lacks \(status)")
            }
            // A route of one section can answer 404 not_found; a household route 404 no_household.
            #expect(
                (responses["404"] != nil) == (route.sections.count == 1 || route.household != nil), "\(route.path) 404")
            let ref = try #require(responses["200"]?["content"]?["application/json"]?["schema"]?["$ref"]?.stringValue)
            let answer = try #require(schemas[String(ref.split(separator: "/").last ?? "")])
            let properties = try #require(answer["properties"]?.objectValue)
            if let household = route.household {
                // Each member's own answer under `members`; the combined lists at the top.
                let member = try #require(properties["members"]?["items"]?["properties"]?.objectValue)
                for section in route.sections {
                    let key = section.mergeInto ?? section.name
                    let combined = household.combine.contains(key)
                    #expect(properties[key] != nil || !combined, "\(route.path) combined \(key)")
                    #expect((member[key] != nil) == !combined, "\(route.path) member's \(key)")
                    #expect(member["sections"]?["properties"]?[section.name] != nil, "\(route.path) \(section.name)")
                }
                for key in ["household", "timezone", "members", "complete", "stale", "age_seconds"] + household.combine
                {
                    #expect(answer["required"]?.arrayValue?.contains(.string(key)) == true, "\(route.path) \(key)")
                }
                continue
            }
            for section in route.sections {
                // A merged section's list joins its target's key; it has none of its own.
                #expect(
                    (properties[section.name] != nil) == (section.mergeInto == nil),
                    "\(route.path) answer and section \(section.name)")
                #expect(properties["sections"]?["properties"]?[section.name] != nil)
            }
            for parameter in route.parameters {
                #expect(
                    properties[parameter.name]?["type"] == .string("string"), "\(route.path) echoes \(parameter.name)")
            }
            for key in ["complete", "stale", "age_seconds", "sections"] {
                #expect(answer["required"]?.arrayValue?.contains(.string(key)) == true)
            }
        }
    }

    @Test func gatewayEndpointsAreDocumented() throws {
        let paths = try #require(try Self.document(try Self.routes())["paths"]?.objectValue)
        for path in ["/healthz", "/readyz", "/metrics", "/openapi.json", "/v1/stream", "/v1/summary", "/v1/sources"] {
            #expect(paths[path]?["get"]?["responses"]?["200"] != nil, "\(path) is not documented")
        }
        #expect(paths["/v1/stream"]?["get"]?["responses"]?["200"]?["content"]?["text/event-stream"] != nil)
        #expect(paths["/metrics"]?["get"]?["responses"]?["200"]?["content"]?["text/plain"] != nil)
    }

    @Test func everyStandardOperationHasASchema() throws {
        let schemas = try #require(try Self.document(try Self.routes())["components"]?["schemas"]?.objectValue)
        for name in OperationRegistry.standard.names {
            let body = try #require(OperationRegistry.standard[name]?.bodySchema, "no operation \(name)")
            #expect(schemas[body.name] != nil, "\(name): component \(body.name) missing")
        }
        #expect(OperationRegistry.standard["tickedify.completed"]?.bodySchema.name != SchemaComponent.anyJSON.name)
    }

    /// The typed document passes OpenAPIKit's validation (references resolve, operation ids
    /// and parameters are unique, every operation has responses, …).
    @Test func validatesWithOpenAPIKit() throws {
        let document = OpenAPIDocument.document(routes: try Self.routes())
        #expect(document.openAPIVersion == .v3_1_0)
        try document.validate()
    }

    /// Every operation, write and part every registered backend declares is in the document,
    /// each component exactly as its home declares it.
    @Test func everyBackendDeclarationAppearsWithItsSchema() throws {
        let document = try Self.document(try Self.routes())
        let schemas = try #require(document["components"]?["schemas"]?.objectValue)
        let paths = try #require(document["paths"]?.objectValue)
        func expectComponent(_ component: SchemaComponent, _ context: String) throws {
            for (name, schema) in component.closure {
                #expect(schemas[name] == (try JSONValue(encoding: schema)), "\(context): \(name)")
            }
        }
        var operations = 0
        var writes = 0
        for backend in BackendCatalog.all {
            for operation in backend.operations {
                operations += 1
                let body = operation.bodySchema
                #expect(body.name != SchemaComponent.anyJSON.name, "\(operation.name) declares no body schema")
                try expectComponent(body, operation.name)
            }
            for write in backend.writes {
                writes += 1
                let name = "\(write.method.rawValue) \(write.path)"
                let documentation = write.documentation
                let operation = try #require(
                    paths[write.path]?[write.method.rawValue.lowercased()], "\(name) is not documented")
                #expect(operation["operationId"] == .string(documentation.operationID), "\(name)")
                let success = operation["responses"]?[String(documentation.success.status)]
                if let schema = documentation.success.schema {
                    #expect(
                        success?["content"]?["application/json"]?["schema"]?["$ref"]
                            == .string("#/components/schemas/\(schema.name)"), "\(name)")
                    try expectComponent(schema, name)
                } else {
                    #expect(success != nil && success?["content"] == nil, "\(name): a success without a body")
                }
                if let body = documentation.body {
                    #expect(
                        operation["requestBody"]?["content"]?["application/json"]?["schema"]?["$ref"]
                            == .string("#/components/schemas/\(body.name)"), "\(name)")
                    try expectComponent(body, name)
                } else {
                    #expect(operation["requestBody"] == nil, "\(name) takes no body")
                }
                for parameter in documentation.parameters {
                    #expect(document["components"]?["parameters"]?[parameter.name] != nil, "\(name): \(parameter.name)")
                }
            }
            if let part = backend.summaryPart {
                let summary = try #require(schemas["Summary"]?["properties"])
                let input = SummaryInput(
                    bodies: [:], date: LocalDate(containing: Date(), in: .gmt), zone: .gmt, now: Date())
                #expect(
                    Set(part.summarize(input).values.keys) == Set(part.keySchemas.keys),
                    "\(backend.name): the summary keys it writes are the keys it declares")
                for (key, schema) in part.keySchemas {
                    #expect(summary[key] == (try JSONValue(encoding: schema)), "\(backend.name): summary key \(key)")
                }
                for component in part.keyComponents { try expectComponent(component, "\(backend.name) summary") }
            }
            if let part = backend.sourcesPart {
                let status = try #require(schemas["SourceStatus"]?["properties"])
                for key in part.detailSchemas.keys {
                    #expect(status[key] != nil, "\(backend.name): sources key \(key)")
                }
                for component in part.detailComponents { try expectComponent(component, "\(backend.name) sources") }
            }
        }
        #expect(operations == OperationRegistry.standard.names.count)
        #expect(writes == BackendCatalog.writes.count && writes > 0)
    }

    @Test func everyReferenceResolves() throws {
        let document = try Self.document(try Self.routes())
        var references: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let fields):
                if let ref = fields["$ref"]?.stringValue { references.append(ref) }
                fields.values.forEach(walk)
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(document)
        #expect(!references.isEmpty)
        for reference in Set(references) {
            #expect(reference.hasPrefix("#/"), "\(reference)")
            var node: JSONValue? = document
            for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
            #expect(node != nil, "\(reference) does not resolve")
        }
    }

    /// Every link of an answer (a write's, or a route's to a route whose path parameter takes
    /// its values from it) leads to an operation of the document, with parameters that
    /// operation has, read from a place its answer's schema has (`$response.body#/a/0/b`:
    /// property `a`, an item of that array, then its `b`, through references and `anyOf`).
    @Test func everyLinkLeadsToAnOperationAndReadsADocumentedValue() throws {
        let document = try Self.document(try Self.routes())
        var operations: [String: JSONValue] = [:]
        for (_, item) in document["paths"]?.objectValue?.fields ?? [] {
            for (_, operation) in item.objectValue?.fields ?? [] {
                if let id = operation["operationId"]?.stringValue { operations[id] = operation }
            }
        }
        func resolve(_ value: JSONValue?) -> JSONValue? {
            guard let ref = value?["$ref"]?.stringValue else { return value }
            var node: JSONValue? = document
            for part in ref.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
            return resolve(node)
        }
        var links = 0
        for (_, operation) in operations {
            for (_, response) in operation["responses"]?.objectValue?.fields ?? [] {
                for (name, link) in resolve(response)?["links"]?.objectValue?.fields ?? [] {
                    links += 1
                    let target = try #require(link["operationId"]?.stringValue.flatMap { operations[$0] }, "\(name)")
                    let names = Set(
                        (target["parameters"]?.arrayValue ?? []).compactMap { resolve($0)?["name"]?.stringValue })
                    for (parameter, expression) in link["parameters"]?.objectValue?.fields ?? [] {
                        #expect(names.contains(parameter), "\(name): \(parameter)")
                        let pointer = try #require(expression.stringValue?.split(separator: "#").last)
                        var schemas = [resolve(response)?["content"]?["application/json"]?["schema"]].compactMap {
                            $0
                        }
                        for part in pointer.split(separator: "/") {
                            // A schema and the alternatives it allows (a nullable value's anyOf).
                            let choices = schemas.compactMap { resolve($0) }.flatMap { schema in
                                [schema]
                                    + (schema["anyOf"]?.arrayValue ?? []).compactMap { resolve($0) }
                                    + (schema["oneOf"]?.arrayValue ?? []).compactMap { resolve($0) }
                            }
                            schemas = choices.compactMap {
                                part.allSatisfy(\.isNumber) ? $0["items"] : $0["properties"]?[String(part)]
                            }
                        }
                        #expect(!schemas.isEmpty, "\(name): \(expression) is not in the answer's schema")
                    }
                }
            }
        }
        #expect(links >= 5)
    }

    /// Model values, encoded as the operations encode them (nil edge cases included), match
    /// their component schemas: no undocumented key, every required key, nulls only where allowed.
    @Test func encodedModelValuesMatchTheirSchemas() throws {
        let document = try Self.document(try Self.routes())
        let open = TaskItem(
            id: "t1", title: "Open", list: "inbox", priority: nil, appearsOn: nil, durationMinutes: nil,
            projectID: nil, contextID: nil, recurrence: nil, createdAt: nil
        )
        var done = open
        done.completedAt = "2026-11-22T10:00:00+01:00"
        done.priority = .high
        let team = Dienst.Team(id: "team", code: nil, name: "JO11-3")
        let samples: [(String, JSONValue)] = [
            (
                "EventList",
                try JSONValue(encoding: [
                    Event(
                        id: "e", title: "Standup", start: "2026-11-22T09:00:00+01:00", end: "2026-11-22T09:15:00+01:00")
                ])
            ),
            (
                "DailyPlan",
                try JSONValue(encoding: [
                    PlanItem(
                        id: "p", taskID: nil, title: "Pauze", hour: 12, position: 0, kind: .break, durationMinutes: nil,
                        projectID: nil, contextID: nil)
                ])
            ),
            ("TaskList", try JSONValue(encoding: [open])),
            ("CompletedTaskList", try JSONValue(encoding: [done])),
            (
                "TaskCounts",
                try JSONValue(encoding: TaskCounts(inbox: 1, acties: 2, opvolgen: 3, projecten: 4, uitgesteld: 5))
            ),
            (
                "DienstList",
                try JSONValue(encoding: [
                    Dienst(
                        id: "d1", tenant: "club", team: nil, start: "2026-11-22T10:00:00+01:00",
                        end: "2026-11-22T13:00:00+01:00",
                        location: nil, type: nil, status: "ingepland", volunteers: [], volunteersNeeded: 2,
                        role: "member",
                        offeredForTransfer: false, updatedAt: nil
                    ),
                    Dienst(
                        id: "d2", tenant: "club", team: team, start: "2026-11-22T10:00:00+01:00",
                        end: "2026-11-22T13:00:00+01:00",
                        location: "Kantine", type: .init(name: "Bar", icon: nil), status: "ingepland",
                        volunteers: ["Sanne"],
                        volunteersNeeded: 1, role: "manager", offeredForTransfer: true,
                        updatedAt: "2026-11-15T09:35:50Z"
                    ),
                ])
            ),
            (
                "Leaderboard",
                try JSONValue(encoding: [
                    LeaderboardEntry(
                        rank: 1, team: team, points: 10, totalHours: 1.5, recentChange: 0, positionChange: -1,
                        highlighted: true)
                ])
            ),
            (
                "NutritionSummary",
                try JSONValue(
                    encoding: NutritionSummary(
                        date: "2026-11-22", calories: 1200, proteinG: 50.5, carbsG: 100, fatG: 40, goalCalories: nil,
                        remainingCalories: nil,
                        meals: .init(
                            breakfast: .init(calories: nil, items: 2), lunch: .init(calories: 500, items: 1),
                            dinner: .init(calories: nil, items: 0), snack: .init(calories: nil, items: 0))
                    ))
            ),
            (
                "KnowledgeTimeline",
                try JSONValue(encoding: [
                    KnowledgeItem(
                        id: "k", title: nil, url: nil, summary: nil, type: nil, tags: [], createdAt: nil, permalink: nil
                    )
                ])
            ),
            (
                "SectionReport",
                try JSONValue(
                    encoding: SectionReport(
                        status: .error, cache: .none, ageSeconds: nil, backend: "fitiq",
                        error: ErrorDetail(code: "upstream_timeout", message: "slow")))
            ),
            (
                "SectionReport",
                try JSONValue(
                    encoding: SectionReport(
                        status: .partial, cache: .hit, ageSeconds: 3, backend: "kantinekoning",
                        issues: [SectionIssue(scope: "agovv", code: "season_ended", message: "over")]))
            ),
            ("Error", try JSONValue(encoding: ErrorBody(.badParameter("date must be a date")))),
        ]
        for (component, value) in samples {
            let problems = SchemaCheck(document: document).problems(
                value, against: JSONSchemaRef.component(component), at: "$")
            #expect(problems.isEmpty, "\(component): \(problems)")
        }
        // The open task's schema must not demand completed_at; the completed one must.
        let schemas = try #require(document["components"]?["schemas"])
        #expect(schemas["TaskItem"]?["required"]?.arrayValue?.contains(.string("completed_at")) == false)
        #expect(schemas["CompletedTaskItem"]?["required"]?.arrayValue?.contains(.string("completed_at")) == true)
        #expect(
            !SchemaCheck(document: document).problems(
                try JSONValue(encoding: [open]), against: JSONSchemaRef.component("CompletedTaskList"), at: "$"
            ).isEmpty)
    }

    /// Every write endpoint with its method, success status, request body and the errors every
    /// write can get; POSTs take Idempotency-Key, bodies need application/json (415).
    @Test func writeEndpointsAreDocumented() throws {
        let document = try Self.document(try Self.routes())
        let paths = try #require(document["paths"]?.objectValue)
        let writes: [(method: String, path: String, success: String, body: String?, answer: String?)] = [
            ("post", "/v1/tasks", "201", "NewTask", "TaskCreated"),
            ("post", "/v1/events", "201", "EventCreate", "EventAnswer"),
            ("put", "/v1/events/{id}", "200", "EventUpdate", "EventAnswer"),
            ("delete", "/v1/events/{id}", "200", nil, "EventDeleted"),
            ("post", "/v1/captures", "202", "NewCapture", "CaptureAccepted"),
            ("post", "/v1/food-logs", "201", "NewFoodLog", "FoodLogCreated"),
            ("delete", "/v1/food-logs/{id}", "204", nil, nil),
            ("post", "/v1/diensten/{id}/volunteers", "200", "NewVolunteer", "DienstAnswer"),
            ("delete", "/v1/diensten/{id}/volunteers/{name}", "200", nil, "DienstAnswer"),
        ]
        var operationIDs = Set<String>()
        for write in writes {
            let name = "\(write.method.uppercased()) \(write.path)"
            let operation = try #require(paths[write.path]?[write.method], "\(name) is not documented")
            #expect(operation["tags"] == .array([.string("writes")]), "\(name)")
            if let id = operation["operationId"]?.stringValue {
                #expect(operationIDs.insert(id).inserted, "\(name): operationId \(id) twice")
            }
            let responses = try #require(operation["responses"]?.objectValue)
            let answer = responses[write.success]?["content"]?["application/json"]?["schema"]?["$ref"]
            #expect(responses[write.success] != nil, "\(name) lacks \(write.success)")
            #expect(
                answer == write.answer.map { .string("#/components/schemas/\($0)") },
                "\(name) \(write.success): \(String(describing: answer))")
            var statuses = [
                "400", "401", "403", "404", "409", "410", "413", "422", "429", "431", "502", "503", "504", "default",
            ]
            if write.body != nil { statuses.append("415") }
            for status in statuses {
                #expect(responses[status] != nil, "\(name) lacks \(status)")
            }
            #expect((responses["415"] != nil) == (write.body != nil), "\(name): 415 only with a body")
            let body = operation["requestBody"]?["content"]?["application/json"]?["schema"]?["$ref"]
            #expect(
                body == write.body.map { .string("#/components/schemas/\($0)") },
                "\(name) body \(String(describing: body))")
            let parameters = operation["parameters"]?.arrayValue ?? []
            #expect(
                parameters.contains(.object(["$ref": .string("#/components/parameters/IdempotencyKey")]))
                    == (write.method == "post"), "\(name)")
            let successHeaders = responses[write.success]?["headers"]?.objectValue ?? [:]
            #expect((successHeaders["Idempotent-Replayed"] != nil) == (write.method == "post"), "\(name)")
            // Every {template} of the path is a documented path parameter.
            let templates = write.path.split(separator: "/").filter { $0.hasPrefix("{") }.map {
                String($0.dropFirst().dropLast())
            }
            let declared = parameters.compactMap { parameter -> String? in
                guard let ref = parameter["$ref"]?.stringValue else { return nil }
                let resolved = document["components"]?["parameters"]?[String(ref.split(separator: "/").last ?? "")]
                return resolved?["in"] == .string("path") ? resolved?["name"]?.stringValue : nil
            }
            #expect(Set(declared) == Set(templates), "\(name): path parameters \(declared)")
        }
    }

    /// The request bodies name exactly the fields the gateway accepts, with its limits.
    @Test func writeBodiesFollowTheGatewaysInput() throws {
        let schemas = try #require(try Self.document(try Self.routes())["components"]?["schemas"])
        func keys(_ name: String) -> Set<String> {
            Set(schemas[name]?["properties"]?.objectValue.map { Array($0.keys) } ?? [])
        }
        #expect(keys("EventCreate") == EventInput.fields)
        #expect(keys("EventUpdate") == EventInput.fields)
        #expect(schemas["EventCreate"]?["required"] == .array(["end", "start", "title"].map(JSONValue.string)))
        // OpenAPIKit leaves an empty `required` out: nothing is required.
        #expect(schemas["EventUpdate"]?["required"] == nil)
        #expect(
            schemas["EventCreate"]?["properties"]?["status"]?["enum"]
                == .array(EventInput.statuses.map(JSONValue.string)))
        #expect(keys("NewTask") == ["title"])
        #expect(
            schemas["NewTask"]?["properties"]?["title"]?["maxLength"]
                == .number(Double(TickedifyInbox.maximumTitleLength)))
        // A link or a note: two closed objects with the same fields, one requiring url, one content.
        let captures = schemas["NewCapture"]?["anyOf"]?.arrayValue ?? []
        #expect(captures.count == 2)
        for (capture, required) in zip(captures, ["url", "content"]) {
            #expect(
                Set(capture["properties"]?.objectValue.map { Array($0.keys) } ?? [])
                    == ["url", "content", "title", "tags", "content_type"])
            #expect(capture["required"] == .array([.string(required)]))
            #expect(capture["additionalProperties"] == .bool(false), "NewCapture must refuse unknown fields")
            #expect(
                capture["properties"]?["content_type"]?["enum"]
                    == .array(CaptureInput.contentTypes.map(JSONValue.string)))
        }
        #expect(keys("NewFoodLog") == ["food_id", "food_source", "meal_type", "servings", "logged_at", "notes"])
        #expect(
            schemas["NewFoodLog"]?["required"]
                == .array(["food_id", "food_source", "meal_type", "servings"].map(JSONValue.string)))
        #expect(
            schemas["NewFoodLog"]?["properties"]?["meal_type"]?["enum"]
                == .array(FoodLogInput.mealTypes.map(JSONValue.string)))
        #expect(keys("NewVolunteer") == ["name"])
        #expect(
            schemas["NewVolunteer"]?["properties"]?["name"]?["maxLength"]
                == .number(Double(KantineKoningVolunteers.maximumNameLength)))
        for name in ["NewTask", "EventCreate", "EventUpdate", "NewFoodLog", "NewVolunteer"] {
            #expect(schemas[name]?["additionalProperties"] == .bool(false), "\(name) must refuse unknown fields")
        }
    }

    /// `clientKey` is an HTTP bearer scheme, optional (`[{clientKey: []}, {}]`) on /v1/* and
    /// /metrics only; those answer 401 with WWW-Authenticate; every operation documents 403 and 431.
    @Test func securityIsDocumented() throws {
        let document = try Self.document(try Self.routes())
        let scheme = try #require(document["components"]?["securitySchemes"]?["clientKey"])
        #expect(scheme["type"] == .string("http"))
        #expect(scheme["scheme"] == .string("bearer"))
        #expect(scheme["description"]?.stringValue?.contains("host_not_allowed") == true)
        #expect(document["info"]?["description"]?.stringValue?.contains("WWW-Authenticate") == true)
        let unauthorized = try #require(document["components"]?["responses"]?["Unauthorized"])
        #expect(unauthorized["headers"]?["WWW-Authenticate"]?["required"] == .bool(true))
        let paths = try #require(document["paths"]?.objectValue)
        var keyed = 0
        for (path, item) in paths {
            for (method, operation) in item.objectValue ?? [:] {
                let needsKey = path.hasPrefix("/v1/") || path == "/metrics"
                let security = operation["security"]
                if needsKey {
                    keyed += 1
                    #expect(
                        security == .array([.object(["clientKey": .array([])]), .object([:])]), "\(method) \(path)")
                    #expect(operation["responses"]?["401"] != nil, "\(method) \(path) lacks 401")
                } else {
                    #expect(security == nil, "\(method) \(path) needs no key")
                    #expect(operation["responses"]?["401"] == nil, "\(method) \(path) cannot answer 401")
                }
                #expect(operation["responses"]?["403"] != nil, "\(method) \(path) lacks 403")
                #expect(operation["responses"]?["431"] != nil, "\(method) \(path) lacks 431")
            }
        }
        #expect(keyed > 8)
        #expect(document["security"] == nil, "no global security: /healthz, /readyz and /openapi.json need no key")
    }

    /// Write answers, encoded as the gateway encodes them, match their schemas.
    @Test func encodedWriteAnswersMatchTheirSchemas() throws {
        let document = try Self.document(try Self.routes())
        let event = Event(
            id: "e", title: "Standup", start: "2026-11-23T10:00:00+01:00", end: "2026-11-23T11:00:00+01:00")
        let dienst = Dienst(
            id: "d1", tenant: "club", team: Dienst.Team(id: "team", code: nil, name: "JO11-3"),
            start: "2026-11-28T10:00:00+01:00",
            end: "2026-11-28T13:00:00+01:00", location: nil, type: nil, status: "ingepland", volunteers: ["Sanne"],
            volunteersNeeded: 2,
            role: "manager", offeredForTransfer: false, updatedAt: nil
        )
        let samples: [(String, JSONValue)] = [
            ("TaskCreated", try JSONValue(encoding: ["task": ["id": "t1", "title": "Bellen", "list": "inbox"]])),
            ("EventAnswer", try JSONValue(encoding: ["event": event])),
            ("EventDeleted", try JSONValue(encoding: ["deleted": ["id": "e"]])),
            ("DienstAnswer", try JSONValue(encoding: ["dienst": dienst])),
            (
                "CaptureAccepted",
                .object([
                    "capture": .object([
                        "id": .string("c1"), "status": .string("pending"), "message": .string("Item capture initiated"),
                        "duplicate_info": .null,
                        "url": .null, "title": .string("Note"), "content_type": .string("note"),
                        "tags": .array([.string("swift")]),
                    ])
                ])
            ),
            (
                "EventCreate",
                .object([
                    "title": .string("Standup"), "start": .string("2026-11-23T10:00:00+01:00"),
                    "end": .string("2026-11-23T11:00:00+01:00"),
                    "location": .null, "tags": .array([.string("work")]), "status": .string("tentative"),
                ])
            ),
            ("Error", try JSONValue(encoding: ErrorBody(ErrorDetail(code: "idempotency_key_reused", message: "used")))),
        ]
        for (component, value) in samples {
            let problems = SchemaCheck(document: document).problems(
                value, against: JSONSchemaRef.component(component), at: "$")
            #expect(problems.isEmpty, "\(component): \(problems)")
        }
        // A body with an unknown field is refused by the schema, as by the gateway.
        #expect(
            !SchemaCheck(document: document).problems(
                .object(["titel": .string("typo")]), against: JSONSchemaRef.component("NewTask"), at: "$"
            ).isEmpty)
    }

    /// A user's route naming an operation the schema table does not know documents its section as any JSON.
    @Test func unknownOperationGetsAnySchema() throws {
        let registry = OperationRegistry([CustomOperation()])
        let route = try RouteLoader(registry: registry).parse(
            """
            path: /v1/custom
            description: A user's own route. With two sentences.
            parameters:
              when: { type: date, default: today-1 }
              flag: { type: bool }
            sections:
              thing:
                operation: custom.thing
            """, file: "/somewhere/custom.yaml")
        let document = try Self.document([route])
        let operation = try #require(document["paths"]?["/v1/custom"]?["get"])
        #expect(operation["summary"] == .string("A user's own route."))
        #expect(operation["description"]?.stringValue?.contains("/somewhere") == false)
        let when = try #require(operation["parameters"]?.arrayValue?.first { $0["name"] == .string("when") })
        #expect(when["x-default"] == .string("today-1"))
        #expect(when["schema"]?["default"] == nil)
        let answer = try #require(document["components"]?["schemas"]?["CustomAnswer"])
        #expect(answer["properties"]?["thing"]?["anyOf"]?.arrayValue?.first == JSONSchemaRef.component("AnyJSON"))
        #expect(document["components"]?["schemas"]?["AnyJSON"] == .object([:]))
        #expect(answer["required"]?.arrayValue?.contains(.string("when")) == true)
        #expect(answer["required"]?.arrayValue?.contains(.string("flag")) == false)
    }
}

private struct CustomOperation: BackendOperation {
    var name: String { "custom.thing" }
    var backend: String { "custom" }
    var defaultTTL: TimeInterval { 60 }
    var bodySchema: SchemaComponent { .anyJSON }
    var arguments: [OperationArgument] { [] }
    func isConfigured(for profile: ProfileConfig) -> Bool { true }
    func credentialFingerprint(for profile: ProfileConfig) -> String { CredentialFingerprint.none }
    func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        arguments
    }
    func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        OperationOutput(body: Data("{}".utf8))
    }
}

private enum JSONSchemaRef {
    static func component(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/schemas/\(name)")])
    }
}

/// A small structural JSON Schema check (the keywords the document uses: $ref, type, enum,
/// anyOf, properties, required, additionalProperties, items); formats are not checked here.
private struct SchemaCheck {
    let document: JSONValue

    func problems(_ value: JSONValue, against schema: JSONValue, at path: String) -> [String] {
        if let ref = schema["$ref"]?.stringValue {
            var node: JSONValue? = document
            for part in ref.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
            guard let node else { return ["\(path): unresolved \(ref)"] }
            return problems(value, against: node, at: path)
        }
        if let options = schema["anyOf"]?.arrayValue {
            if options.contains(where: { problems(value, against: $0, at: path).isEmpty }) { return [] }
            return ["\(path): matches no anyOf option"]
        }
        var found: [String] = []
        if let type = schema["type"] {
            let allowed = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            guard allowed.contains(where: { Self.matches(value, type: $0) }) else {
                return ["\(path): \(value) is not \(allowed.joined(separator: "|"))"]
            }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(value) {
            found.append("\(path): \(value) is not one of \(options)")
        }
        if case .object(let fields) = value {
            let properties = schema["properties"]?.objectValue ?? [:]
            for required in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            where fields[required] == nil {
                found.append("\(path).\(required): required but absent")
            }
            for (key, field) in fields {
                if let property = properties[key] {
                    found += problems(field, against: property, at: "\(path).\(key)")
                } else if schema["additionalProperties"] == .bool(false) {
                    found.append("\(path).\(key): not documented")
                } else if let additional = schema["additionalProperties"], additional.objectValue != nil {
                    found += problems(field, against: additional, at: "\(path).\(key)")
                }
            }
        }
        if case .array(let items) = value, let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() {
                found += problems(item, against: itemSchema, at: "\(path)[\(index)]")
            }
        }
        return found
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("number", .int), ("number", .double), ("integer", .int):
            true
        case ("integer", .double(let number)):
            number.rounded() == number
        default:
            false
        }
    }
}
