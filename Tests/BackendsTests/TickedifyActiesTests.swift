import Foundation
import Logging
import Model
import Simulators
import Testing

@testable import Backends

/// `acties` lists what Tickedify's sidebar counts: the actions due by the household's today.
@Suite("Tickedify acties")
struct TickedifyActiesTests {
    static func fetch(
        _ operation: some BackendOperation, _ arguments: [String: ArgumentValue], _ context: OperationContext
    ) async throws -> JSONValue {
        let normalised = try operation.normalise(arguments, clock: context.clock)
        let output = try await operation.fetch(normalised, context: context)
        return try JSONDecoder().decode(JSONValue.self, from: output.body)
    }

    @Test func theListCountsWhatTheSidebarCounts() async throws {
        try await TickedifyAccountTests.withFixture { f in
            let settings = f.settings(TickedifySimulator.demoEmail, TickedifySimulator.demoPassword)
            var context = f.context("default", settings)
            let zone = TickedifyAccountTests.zone
            let today = LocalDate(year: 2026, month: 11, day: 23)
            context.clock = RequestClock(now: today.start(in: zone).addingTimeInterval(10 * 3600), timeZone: zone)

            let counts = try await Self.fetch(TickedifyCountsOperation(), [:], context)
            let acties = try #require(counts["acties"]?.numberValue)
            let due = try #require(
                try await Self.fetch(TickedifyListOperation(), ["list": .string("acties")], context).arrayValue)
            #expect(Double(due.count) == acties)
            for task in due {
                if let appears = task["appears_on"]?.stringValue { #expect(appears <= today.description) }
            }
            let all = try #require(
                try await Self.fetch(
                    TickedifyListOperation(), ["list": .string("acties"), "future": .bool(true)], context
                ).arrayValue)
            #expect(all.count > due.count, "the seed has an action that appears later")
            #expect(all.contains { ($0["appears_on"]?.stringValue ?? "") > today.description })
        }
    }

    @Test func normalisedByTheHouseholdsToday() throws {
        let zone = TimeZone(identifier: "Pacific/Auckland")!
        let operation = TickedifyListOperation()
        // 23:30 UTC on the 23rd is already the 24th in Auckland (UTC+13).
        let clock = RequestClock(now: LenientDate.parse("2026-11-23T23:30:00Z")!, timeZone: zone)
        #expect(
            try operation.normalise(["list": .string("acties")], clock: clock)
                == ["list": .string("acties"), "due_by": .date(LocalDate(year: 2026, month: 11, day: 24))])
        #expect(
            try operation.normalise(["list": .string("acties"), "future": .bool(true)], clock: clock)
                == ["list": .string("acties"), "future": .bool(true)])
        #expect(
            try operation.normalise(["list": .string("inbox"), "future": .bool(true)], clock: clock)
                == ["list": .string("inbox")])
        let task = { (appears: String?) in
            TaskItem(
                id: appears ?? "none", title: "t", list: "acties", priority: nil, appearsOn: appears,
                durationMinutes: nil, projectID: nil, contextID: nil, recurrence: nil, createdAt: nil,
                completedAt: nil)
        }
        let day = LocalDate(year: 2026, month: 11, day: 24)
        #expect(
            TickedifyListOperation.due(
                [task(nil), task("2026-11-24"), task("2026-11-25"), task("2026-11-01")], by: day
            )
            .map(\.id) == ["none", "2026-11-24", "2026-11-01"])
    }
}
