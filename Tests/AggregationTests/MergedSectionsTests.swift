import Aggregation
import Backends
import Foundation
import Model
import Testing

/// `merge_into`: sections whose lists join another section's key (events from several
/// calendars in one list, ordered by start), each keeping its own report.
@Suite("Merged sections")
struct MergedSectionsTests {
    let route = """
        path: /v1/test
        deadline: 30s
        sections:
          events: { operation: test.calendar }
          school: { operation: test.school, merge_into: events }
          club: { operation: test.club, merge_into: events }
        """

    func run(_ operations: [ScriptedOperation]) async throws -> (JSONValue, AggregateAnswer) {
        let (aggregator, route, folder) = try AggregatorTests().makeAggregator(operations, routeText: route)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let answer = try await aggregator.run(route: route, query: [], profileName: "default")
        return (try JSONDecoder().decode(JSONValue.self, from: answer.body), answer)
    }

    @Test func listsJoinOrderedByStartWithOneReportEach() async throws {
        let (body, answer) = try await run([
            ScriptedOperation(
                "test.calendar", backend: "alpha",
                .answer(
                    #"[{"id":"a2","start":"2026-11-24T12:00:00+01:00"},{"id":"a1","start":"2026-11-24T08:00:00+01:00"}]"#
                )),
            ScriptedOperation(
                "test.school", backend: "beta", .answer(#"[{"id":"s1","start":"2026-11-24T09:00:00Z"}]"#)),
            ScriptedOperation(
                "test.club", backend: "gamma", .answer(#"[{"id":"c1","start":"2026-11-24T08:00:00+01:00"}]"#)),
        ])
        let ids = body["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        // 09:00Z is 10:00 in Amsterdam; a tie (08:00) keeps the sections' order: events, then club.
        #expect(ids == ["a1", "c1", "s1", "a2"])
        #expect(body["school"] == nil)
        #expect(body["club"] == nil)
        #expect(answer.sections.keys.sorted() == ["club", "events", "school"])
        #expect(answer.complete)
    }

    @Test func aFailingListLeavesTheOthers() async throws {
        let (body, answer) = try await run([
            ScriptedOperation("test.calendar", backend: "alpha", .fail),
            ScriptedOperation(
                "test.school", backend: "beta", .answer(#"[{"id":"s1","start":"2026-11-24T09:00:00Z"}]"#)),
            ScriptedOperation("test.club", backend: "gamma", .fail),
        ])
        #expect(body["events"]?.arrayValue?.count == 1)
        #expect(answer.sections["events"]?.status == .error)
        #expect(answer.sections["school"]?.status == .ok)
        #expect(!answer.complete)
    }

    @Test func noListAtAllIsNull() async throws {
        let (body, _) = try await run([
            ScriptedOperation("test.calendar", backend: "alpha", .fail),
            ScriptedOperation("test.school", backend: "beta", .fail),
            ScriptedOperation("test.club", backend: "gamma", .fail),
        ])
        #expect(body["events"] == .null)
    }

    @Test func aMergeMustNameAnotherKeptSection() throws {
        let registry = OperationRegistry([
            ScriptedOperation("test.calendar", backend: "alpha", .fail),
            ScriptedOperation("test.school", backend: "beta", .fail),
        ])
        for target in ["nowhere", "school"] {
            let text = """
                path: /v1/test
                sections:
                  events: { operation: test.calendar }
                  school: { operation: test.school, merge_into: \(target) }
                """
            #expect(throws: RouteLoadError.self) { try RouteLoader(registry: registry).parse(text, file: "t.yaml") }
        }
    }
}
