import Foundation
import Model
import Testing

@testable import Backends

/// The summary's next task: the first task slot of the day's plan whose hour has not ended, its
/// start in the household's zone, and when the clock alone changes it.
@Suite("Tickedify next task")
struct TickedifyNextTaskTests {
    static let day = LocalDate(year: 2026, month: 11, day: 24)

    static func slot(_ id: String, _ hour: Int, _ position: Int = 0, _ kind: PlanItem.Kind = .task) -> PlanItem {
        PlanItem(
            id: "plan_\(id)", taskID: kind == .task ? "task_\(id)" : nil, title: "Slot \(id)", hour: hour,
            position: position, kind: kind, durationMinutes: 30, projectID: nil, contextID: nil)
    }

    static let plan = [
        slot("lunch", 12, 0, .break), slot("b", 9, 1), slot("a", 9, 0), slot("blocked", 10, 0, .blocked),
        slot("c", 14, 0),
    ]

    func summarize(_ items: [PlanItem], zone: String, now: Date) -> [String: JSONValue] {
        let body = try! JSONCoding.encode(items)
        let input = SummaryInput(
            bodies: ["plan": body], date: Self.day, zone: TimeZone(identifier: zone)!, now: now)
        return TickedifySummaryPart().summarize(input).values
    }

    @Test func aSlotOfTheCurrentHourIsStillNextInAZoneEastOfUTC() throws {
        // 09:59 in Amsterdam (UTC+1) is 08:59 UTC.
        let now = try #require(LenientDate.parse("2026-11-24T09:59:00+01:00"))
        let values = summarize(Self.plan, zone: "Europe/Amsterdam", now: now)
        #expect(values["next_task_title"] == .string("Slot a"))
        #expect(values["next_task_id"] == .string("task_a"))
        #expect(values["next_task_start"] == .string("2026-11-24T09:00:00+01:00"))
        #expect(values["next_task"]?["task_id"] == .string("task_a"))
        let changes = TickedifySummaryPart().summarize(
            SummaryInput(
                bodies: ["plan": try JSONCoding.encode(Self.plan)], date: Self.day,
                zone: TimeZone(identifier: "Europe/Amsterdam")!, now: now)
        ).changesAt
        #expect(changes == LenientDate.parse("2026-11-24T10:00:00+01:00"))
    }

    @Test func onceTheHourHasEndedTheNextTaskSlotFollowsSkippingBlocksAndBreaks() throws {
        let now = try #require(LenientDate.parse("2026-11-24T10:00:00+01:00"))
        let values = summarize(Self.plan, zone: "Europe/Amsterdam", now: now)
        #expect(values["next_task_title"] == .string("Slot c"))
        #expect(values["next_task_start"] == .string("2026-11-24T14:00:00+01:00"))
    }

    @Test func inAZoneWestOfUTCTheHourIsTheLocalOne() throws {
        // 13:30 in New York (UTC-5) is 18:30 UTC: the 14:00 slot is next, at 19:00 UTC.
        let now = try #require(LenientDate.parse("2026-11-24T13:30:00-05:00"))
        let values = summarize(Self.plan, zone: "America/New_York", now: now)
        #expect(values["next_task_title"] == .string("Slot c"))
        #expect(values["next_task_start"] == .string("2026-11-24T14:00:00-05:00"))
        // The same instant read in Amsterdam (19:30 there) has no task left.
        let east = summarize(Self.plan, zone: "Europe/Amsterdam", now: now)
        #expect(east["next_task_title"] == .null)
        #expect(east["next_task_id"] == .null)
        #expect(east["next_task_start"] == .null)
        #expect(east["next_task"] == .object(["title": .null, "task_id": .null, "start": .null]))
    }

    @Test func withoutAPlanThereIsNoNextTask() throws {
        let values = TickedifySummaryPart().summarize(
            SummaryInput(
                bodies: [:], date: Self.day, zone: TimeZone(identifier: "Europe/Amsterdam")!,
                now: try #require(LenientDate.parse("2026-11-24T07:00:00+01:00"))))
        #expect(values.values["next_task_title"] == .null)
        #expect(values.changesAt == nil)
    }
}
