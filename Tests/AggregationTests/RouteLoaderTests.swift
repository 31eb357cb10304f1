import Aggregation
import Backends
import Foundation
import Model
import Testing

@Suite("Route files")
struct RouteLoaderTests {
    let loader = RouteLoader()

    /// The route files the project ships.
    static var shippedRoutes: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("routes").path
    }

    func problems(_ text: String) -> [YAMLSourceError] {
        do {
            _ = try loader.parse(text, file: "kitchen.yaml")
            return []
        } catch let error as RouteLoadError {
            return error.problems
        } catch let error as YAMLSourceError {
            return [error]
        } catch {
            Issue.record("unexpected \(error)")
            return []
        }
    }

    @Test func shippedRoutesLoad() throws {
        let routes = try loader.load(directory: Self.shippedRoutes)
        let paths = routes.map(\.path).sorted()
        // The shipped routes (a new backend's routes may join them).
        #expect(
            Set(paths).isSuperset(of: [
                "/v1/calendars", "/v1/diensten", "/v1/events", "/v1/fitness", "/v1/foods/barcode/{code}",
                "/v1/foods/search", "/v1/household/today", "/v1/knowledge/items/{id}", "/v1/knowledge/recent",
                "/v1/knowledge/search", "/v1/knowledge/tags",
                "/v1/leaderboard",
                "/v1/nutrition", "/v1/plan", "/v1/tasks", "/v1/tasks/counts", "/v1/tasks/done", "/v1/today",
            ]))
        let today = try #require(routes.first { $0.path == "/v1/today" })
        #expect(
            Set(today.sections.map(\.name)).isSuperset(of: [
                "diensten", "events", "knowledge", "nutrition", "plan", "subscribed",
            ]))
        let events = try #require(routes.first { $0.path == "/v1/events" })
        #expect(events.sections.map(\.name) == ["events", "subscribed"])
        #expect(events.sections.map(\.mergeInto) == [nil, "events"])
        #expect(events.deadline == 2)
        let date = try #require(events.parameters.first { $0.name == "date" })
        #expect(date.defaultValue == .today(offset: 0))
        #expect(date.defaultUnlessGiven == ["from", "to"])
    }

    @Test func aValidKitchenRoute() throws {
        let route = try loader.parse(
            """
            path: /v1/kitchen
            deadline: 1500ms
            parameters:
              day: { type: date, default: today+1 }
              kind: { type: string, values: [meeting, personal], default: meeting }
            sections:
              tomorrow:
                operation: eightalls.events
                arguments: { date: $day, event_type: $kind, status: confirmed }
                ttl: 5m
            """, file: "kitchen.yaml")
        #expect(route.deadline == 1.5)
        #expect(route.sections[0].ttl == 300)
        #expect(route.sections[0].arguments["status"] == .literal(.string("confirmed")))
        #expect(route.sections[0].arguments["date"] == .parameter("day"))
        #expect(route.parameters.first { $0.name == "day" }?.defaultValue == .today(offset: 1))
    }

    @Test func unknownOperationNamesFileLineAndKnownOnes() throws {
        let found = problems(
            """
            path: /v1/kitchen
            sections:
              plan:
                operation: tickedify.nope
            """)
        let problem = try #require(found.first)
        #expect(problem.line == 4)
        #expect(problem.keyPath == "sections.plan.operation")
        #expect(problem.reason.contains("unknown operation \"tickedify.nope\""))
        #expect(problem.reason.contains("eightalls.events"))
        #expect(problem.description.hasPrefix("kitchen.yaml:4: sections.plan.operation"))
    }

    @Test func everyProblemIsReported() {
        let found = problems(
            """
            path: /kitchen/
            deadline: 90s
            parameters:
              day: { type: datetime }
              n: { type: int, min: 5, max: 1 }
              q: { type: string, max_length: 5000 }
              when: { type: date, default: tomorrow }
              complete: { type: bool }
              word: { type: string }
            sections:
              events:
                operation: eightalls.events
                arguments:
                  date: $word
                  colour: red
                  from: $missing
                  to: 12
                ttl: 0
              sections:
                operation: eightalls.events
            """)
        let reasons = found.map { "\($0.keyPath): \($0.reason)" }
        let expected = [
            "path: must start with /v1/",
            "deadline: must be more than 0 and at most 30s",
            "parameters.day.type: unknown type \"datetime\"",
            "parameters.n.min: min is larger than max",
            "parameters.q.max_length: must be between 1 and 200",
            "parameters.when.default: invalid default",
            "parameters.complete: a parameter name",
            "sections.events.arguments.date: eightalls.events wants a date for date, but $word is a string",
            "sections.events.arguments.colour: eightalls.events takes no argument \"colour\"",
            "sections.events.arguments.from: $missing names no parameter",
            "sections.events.arguments.to: not a date",
            "sections.events.ttl: must be more than 0",
            "sections.sections: a section name",
        ]
        for prefix in expected {
            #expect(
                reasons.contains { $0.hasPrefix(prefix) }, "missing: \(prefix)\nin \(reasons.joined(separator: "\n"))")
        }
        #expect(found.allSatisfy { $0.line != nil })
    }

    @Test func unknownKeysAndMissingKeys() throws {
        let typo = try #require(
            problems(
                """
                path: /v1/kitchen
                sectoins: {}
                sections:
                  events: { operation: eightalls.events }
                """
            ).first)
        #expect(typo.keyPath == "sectoins")
        #expect(typo.line == 2)
        let missing = try #require(problems("path: /v1/kitchen\n").first)
        #expect(missing.keyPath == "sections")
        #expect(missing.reason == "missing required key")
    }

    @Test func builtinAndDuplicatePaths() throws {
        let builtin = try #require(
            problems("path: /v1/sources\nsections:\n  e: { operation: eightalls.events }\n").first)
        #expect(builtin.reason.contains("served by the gateway itself"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let route = "path: /v1/same\nsections:\n  e: { operation: eightalls.events }\n"
        try route.write(to: folder.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try route.write(to: folder.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        do {
            _ = try loader.load(directory: folder.path)
            Issue.record("duplicate paths must fail")
        } catch let error as RouteLoadError {
            #expect(error.description.contains("b.yaml:1: path: /v1/same is already defined in"))
        }
    }

    @Test func pathParameters() throws {
        let route = try loader.parse(
            """
            path: /v1/knowledge/items/{id}
            parameters:
              id: { type: string, max_length: 36 }
            sections:
              item:
                operation: prsnl.item
                arguments: { id: $id }
            """, file: "item.yaml")
        #expect(route.pathParameterNames == ["id"])
        #expect(route.sections[0].arguments["id"] == .parameter("id"))
    }

    @Test func pathParameterRefusals() throws {
        let found = problems(
            """
            path: /v1/items/{id}/{day}/{kind}/{Bad}/x{y}
            parameters:
              day: { type: date }
              kind: { type: string, default: link }
            sections:
              item:
                operation: prsnl.item
                arguments: { id: $kind }
            """)
        let reasons = found.map { "\($0.keyPath): \($0.reason)" }
        for prefix in [
            "path: {id} is not declared under parameters",
            "parameters.day.type: day is in the path: its type is string or int",
            "parameters.kind.default: kind is in the path, so it is always given: no default",
            "path: must start with /v1/",
        ] {
            #expect(
                reasons.contains { $0.hasPrefix(prefix) }, "missing: \(prefix)\nin \(reasons.joined(separator: "\n"))")
        }
        #expect(found.allSatisfy { $0.line != nil && $0.file == "kitchen.yaml" })
        let undeclared = try #require(found.first { $0.reason.hasPrefix("{id}") })
        #expect(undeclared.line == 1)
        let twice = problems(
            """
            path: /v1/items/{id}/{id}
            parameters:
              id: { type: string }
            sections:
              item: { operation: prsnl.item, arguments: { id: $id } }
            """)
        #expect(twice.contains { $0.reason == "{id} appears more than once" })
    }

    /// A parameter's `example` is a value it accepts; a path parameter's `values_from` is a route
    /// path and a JSON pointer, of a route of the folder that takes nothing from its path.
    @Test func examplesAndValuesFrom() throws {
        let route = try loader.parse(
            """
            path: /v1/items/{id}
            parameters:
              id:
                type: string
                max_length: 36
                example: 00000000-0000-4000-8000-00000000abcd
                values_from: /v1/list#/items/0/id
            sections:
              item: { operation: prsnl.item, arguments: { id: $id } }
            """, file: "item.yaml")
        #expect(route.parameters[0].example == .string("00000000-0000-4000-8000-00000000abcd"))
        #expect(route.parameters[0].valuesFrom == RouteParameter.ValuesFrom(path: "/v1/list", pointer: "/items/0/id"))

        let found = problems(
            """
            path: /v1/items/{id}
            parameters:
              id: { type: string, max_length: 4, example: too-long, values_from: "/v1/list" }
              limit: { type: int, example: many, values_from: "/v1/list#/0" }
            sections:
              item: { operation: prsnl.item, arguments: { id: $id } }
            """)
        let reasons = found.map { "\($0.keyPath): \($0.reason)" }
        for prefix in [
            "parameters.id.example: invalid example: id is 8 characters long",
            "parameters.id.values_from: is a route's path and a JSON pointer",
            "parameters.limit.example: invalid example: limit must be a whole number",
        ] {
            #expect(
                reasons.contains { $0.hasPrefix(prefix) }, "missing: \(prefix)\nin \(reasons.joined(separator: "\n"))")
        }
        let query = problems(
            """
            path: /v1/items
            parameters:
              id: { type: string, values_from: "/v1/list#/0/id" }
            sections:
              item: { operation: prsnl.item, arguments: { id: $id } }
            """)
        #expect(query.contains { $0.keyPath == "parameters.id.values_from" && $0.reason.contains("query parameter") })

        // The route it names must be in the folder and take nothing from its path.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        path: /v1/items/{id}
        parameters:
          id: { type: string, values_from: "/v1/nowhere#/0/id" }
        sections:
          item: { operation: prsnl.item, arguments: { id: $id } }
        """.write(to: folder.appendingPathComponent("item.yaml"), atomically: true, encoding: .utf8)
        do {
            _ = try loader.load(directory: folder.path)
            Issue.record("values_from naming no route must fail")
        } catch let error as RouteLoadError {
            #expect(error.description.contains("item.yaml:3: parameters.id.values_from: /v1/nowhere is no route"))
        }
    }

    @Test func samePathWithOtherParameterNamesIsADuplicate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["id", "key"] {
            try """
            path: /v1/items/{\(name)}
            parameters:
              \(name): { type: string }
            sections:
              item: { operation: prsnl.item, arguments: { id: $\(name) } }
            """.write(to: folder.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        }
        #expect(throws: RouteLoadError.self) { try loader.load(directory: folder.path) }
    }

    @Test func emptyOrMissingFolder() {
        #expect(throws: RouteLoadError.self) { try loader.load(directory: "/nonexistent/routes") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-empty-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: RouteLoadError.self) { try loader.load(directory: folder.path) }
    }
}
