import Foundation
import Model

/// Kantine Koning's part of `/v1/calendar.ics`: the household's club shifts over the feed's days
/// (one entry per dienst, merged over every enrollment that sees it).
public struct KantineKoningCalendarFeedPart: CalendarFeedPart {
    public func sections(for window: CalendarFeedWindow) -> [CalendarFeedSection] {
        let limit = KantineKoningDienstenOperation.maximumDays
        let past = min(limit, max(0, window.from.days(to: window.today)))
        let future = min(limit, max(0, window.today.days(to: window.to)))
        return [
            CalendarFeedSection(
                name: "diensten", operation: KantineKoningDienstenOperation().name,
                arguments: ["past_days": .int(past), "future_days": .int(future)])
        ]
    }

    public func contribution(_ input: CalendarFeedInput) -> CalendarFeedContribution {
        let diensten = input.decode([Dienst].self, "diensten") ?? []
        let zone = input.window.zone
        let first = input.window.from.start(in: zone)
        let last = input.window.to.adding(days: 1).start(in: zone)
        return CalendarFeedContribution(
            entries: diensten.compactMap { dienst in
                guard let start = LenientDate.parse(dienst.start), let end = LenientDate.parse(dienst.end),
                    end > first, start < last
                else { return nil }
                let what = dienst.type?.name ?? "Dienst"
                var lines = ["Kantine Koning, \(dienst.tenant)"]
                if let team = dienst.team { lines.append("Team: \(team.name)") }
                if !dienst.volunteers.isEmpty {
                    lines.append("Vrijwilligers: \(dienst.volunteers.joined(separator: ", "))")
                }
                if dienst.openSpots > 0 { lines.append("Open plekken: \(dienst.openSpots)") }
                return CalendarFeedEntry(
                    uid: "kantinekoning-\(dienst.tenant)-\(dienst.id)@daygate", summary: "\(what) (\(dienst.tenant))",
                    time: .instants(start: start, end: max(start, end)), location: dienst.location,
                    description: lines.joined(separator: "\n"), categories: ["Kantine Koning"],
                    status: KantineKoningDienstStatus.isCancelled(dienst.status) ? "CANCELLED" : "CONFIRMED")
            })
    }
}
