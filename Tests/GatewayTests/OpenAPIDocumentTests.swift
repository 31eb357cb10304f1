import Aggregation
import Backends
import Foundation
import Gateway
import Model
import Testing

/// /openapi.json: generated from the loaded routes, every route and parameter documented,
/// every operation's body described, every reference resolvable.
@Suite struct OpenAPIDocumentTests {
    static func routes() throws -> [Route] {
        try RouteLoader(registry: .standard).load(directory: GatewayHarness.routesDir)
    }

    static func document(_ routes: [Route]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: OpenAPIDocument.make(routes: routes))
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
            #expect(Set(query) == Set(route.parameters.map(\.name)), "\(route.path): \(query)")
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
            let ref = try #require(responses["200"]?["content"]?["application/json"]?["schema"]?["$ref"]?.stringValue)
            let answer = try #require(schemas[String(ref.split(separator: "/").last ?? "")])
            let properties = try #require(answer["properties"]?.objectValue)
            for section in route.sections {
                #expect(properties[section.name] != nil, "\(route.path) answer lacks section \(section.name)")
                #expect(properties["sections"]?["properties"]?[section.name] != nil)
            }
            for parameter in route.parameters {
                #expect(properties[parameter.name]?["type"] == .string("string"), "\(route.path) echoes \(parameter.name)")
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
            #expect(OperationSchemas.hasSchema(for: name), "no body schema for \(name)")
            if let component = OperationSchemas.bodyComponents[name] {
                #expect(schemas[component] != nil, "\(name): component \(component) missing")
            }
        }
        #expect(OperationSchemas.hasSchema(for: "tickedify.completed"))
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
            ("EventList", try JSONValue(encoding: [Event(id: "e", title: "Standup", start: "2026-11-22T09:00:00+01:00", end: "2026-11-22T09:15:00+01:00")])),
            ("DailyPlan", try JSONValue(encoding: [
                PlanItem(id: "p", taskID: nil, title: "Pauze", hour: 12, position: 0, kind: .break, durationMinutes: nil, projectID: nil, contextID: nil),
            ])),
            ("TaskList", try JSONValue(encoding: [open])),
            ("CompletedTaskList", try JSONValue(encoding: [done])),
            ("TaskCounts", try JSONValue(encoding: TaskCounts(inbox: 1, acties: 2, opvolgen: 3, projecten: 4, uitgesteld: 5))),
            ("DienstList", try JSONValue(encoding: [
                Dienst(
                    id: "d1", tenant: "club", team: nil, start: "2026-11-22T10:00:00+01:00", end: "2026-11-22T13:00:00+01:00",
                    location: nil, type: nil, status: "ingepland", volunteers: [], volunteersNeeded: 2, role: "member",
                    offeredForTransfer: false, updatedAt: nil
                ),
                Dienst(
                    id: "d2", tenant: "club", team: team, start: "2026-11-22T10:00:00+01:00", end: "2026-11-22T13:00:00+01:00",
                    location: "Kantine", type: .init(name: "Bar", icon: nil), status: "ingepland", volunteers: ["Sanne"],
                    volunteersNeeded: 1, role: "manager", offeredForTransfer: true, updatedAt: "2026-11-15T09:35:50Z"
                ),
            ])),
            ("Leaderboard", try JSONValue(encoding: [
                LeaderboardEntry(rank: 1, team: team, points: 10, totalHours: 1.5, recentChange: 0, positionChange: -1, highlighted: true),
            ])),
            ("NutritionSummary", try JSONValue(encoding: NutritionSummary(
                date: "2026-11-22", calories: 1200, proteinG: 50.5, carbsG: 100, fatG: 40, goalCalories: nil, remainingCalories: nil,
                meals: .init(breakfast: .init(calories: nil, items: 2), lunch: .init(calories: 500, items: 1),
                             dinner: .init(calories: nil, items: 0), snack: .init(calories: nil, items: 0))
            ))),
            ("KnowledgeTimeline", try JSONValue(encoding: [
                KnowledgeItem(id: "k", title: nil, url: nil, summary: nil, type: nil, tags: [], createdAt: nil, permalink: nil),
            ])),
            ("SectionReport", try JSONValue(encoding: SectionReport(status: .error, cache: .none, ageSeconds: nil, backend: "fitiq",
                                                                    error: ErrorDetail(code: "upstream_timeout", message: "slow")))),
            ("SectionReport", try JSONValue(encoding: SectionReport(status: .partial, cache: .hit, ageSeconds: 3, backend: "kantinekoning",
                                                                    issues: [SectionIssue(scope: "agovv", code: "season_ended", message: "over")]))),
            ("Error", try JSONValue(encoding: ErrorBody(.badParameter("date must be a date")))),
        ]
        for (component, value) in samples {
            let problems = SchemaCheck(document: document).problems(value, against: JSONSchemaRef.component(component), at: "$")
            #expect(problems.isEmpty, "\(component): \(problems)")
        }
        // The open task's schema must not demand completed_at; the completed one must.
        let schemas = try #require(document["components"]?["schemas"])
        #expect(schemas["TaskItem"]?["required"]?.arrayValue?.contains(.string("completed_at")) == false)
        #expect(schemas["CompletedTaskItem"]?["required"]?.arrayValue?.contains(.string("completed_at")) == true)
        #expect(!SchemaCheck(document: document).problems(
            try JSONValue(encoding: [open]), against: JSONSchemaRef.component("CompletedTaskList"), at: "$"
        ).isEmpty)
    }

    /// A user's route naming an operation the schema table does not know documents its section as any JSON.
    @Test func unknownOperationGetsAnySchema() throws {
        let registry = OperationRegistry([CustomOperation()])
        let route = try RouteLoader(registry: registry).parse("""
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
        #expect(answer["properties"]?["thing"]?["anyOf"]?.arrayValue?.first == .object([:]))
        #expect(answer["required"]?.arrayValue?.contains(.string("when")) == true)
        #expect(answer["required"]?.arrayValue?.contains(.string("flag")) == false)
    }
}

private struct CustomOperation: BackendOperation {
    var name: String { "custom.thing" }
    var backend: String { "custom" }
    var defaultTTL: TimeInterval { 60 }
    var arguments: [OperationArgument] { [] }
    func isConfigured(for profile: ProfileConfig) -> Bool { true }
    func credentialFingerprint(for profile: ProfileConfig) -> String { CredentialFingerprint.none }
    func normalise(_ arguments: [String: ArgumentValue], timeZone: TimeZone) throws -> [String: ArgumentValue] { arguments }
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
            for required in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where fields[required] == nil {
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
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number):
            true
        case ("integer", .number(let number)):
            number.rounded() == number
        default:
            false
        }
    }
}
