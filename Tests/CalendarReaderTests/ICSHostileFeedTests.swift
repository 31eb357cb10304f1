import CalendarReader
import Foundation
import Model
import Testing

/// Feeds written to hurt: a few kilobytes that ask for millions of instances, candidate dates
/// by the million in one period, nesting without end. Each must come back bounded — at most
/// `ICSLimits.standard.maximumInstances` occurrences, an issue of kind `.limit` saying what was
/// cut — and soon: the time bound below is one only a hang (or an unbounded expansion) exceeds.
@Suite("ICS hostile feeds")
struct ICSHostileFeedTests {
    typealias S = ICSTestSupport

    static let limits = ICSLimits.standard
    /// Far above what a bounded reading and expansion take even on a loaded machine.
    static let hangBound: Duration = .seconds(60)

    /// `count` series of `rule`, each starting at `start` (UTC), in one feed.
    static func series(_ count: Int, rule: String, start: String = "20260101T000000Z") -> String {
        S.feed(
            (0..<count).map { "BEGIN:VEVENT\nUID:s\($0)\nDTSTART:\(start)\nSUMMARY:x\nRRULE:\(rule)\nEND:VEVENT" }
                .joined(separator: "\n"))
    }

    /// Reads `text` and expands it over `[from, to)`, returning the expansion, every issue and how long it all took.
    static func readAndExpand(_ text: String, from: String, to: String, limits: ICSLimits = .standard) throws -> (
        ICSExpansion, [ICSIssue], Duration
    ) {
        let started = ContinuousClock.now
        let calendar = try ICSCalendar(text: text, household: S.amsterdam, limits: limits)
        let expansion = calendar.expand(from: S.day(from), to: S.day(to), limits: limits)
        return (expansion, calendar.issues + expansion.issues, ContinuousClock.now - started)
    }

    /// An RRULE of 400,000 `RRULE:` prefixes (read past, as Google's doubled prefix is) and
    /// 100,000 parts RFC 5545 does not have: read in the time its length takes (each prefix
    /// used to copy the rest of the line), with a bounded number of notes.
    @Test func aRuleOfEndlessPrefixesAndUnknownPartsIsReadInLinearTime() throws {
        let rule =
            String(repeating: "RRULE:", count: 400_000) + "FREQ=DAILY;COUNT=2"
            + String(repeating: ";UNTL=1", count: 100_000)
        let text = S.feed("BEGIN:VEVENT\nUID:long\nDTSTART:20260601T100000Z\nRRULE:\(rule)\nEND:VEVENT")
        let (expansion, issues, elapsed) = try Self.readAndExpand(
            text, from: "2026-06-01", to: "2026-06-03", limits: ICSLimits(maximumDuration: .seconds(600)))
        #expect(expansion.occurrences.count == 2)
        #expect(issues.filter { $0.uid == "long" }.count == ICSRecurrenceRule.maximumNotes + 1)
        #expect(issues.contains { $0.message == "99995 more RRULE parts ignored" })
        #expect(elapsed < Self.hangBound)
    }

    /// The reproduced feed: 100 (and 300) series of FREQ=MINUTELY, 15 (45) KB, over the week
    /// `/v1/summary` asks for. Unbounded it made a million instances (three million).
    @Test(arguments: [100, 300])
    func minutelySeriesAreBounded(count: Int) throws {
        let text = Self.series(count, rule: "FREQ=MINUTELY")
        let (expansion, issues, elapsed) = try Self.readAndExpand(text, from: "2026-06-01", to: "2026-06-08")
        #expect(expansion.occurrences.count <= Self.limits.maximumInstances)
        #expect(!expansion.occurrences.isEmpty)
        #expect(issues.contains { $0.kind == .limit && $0.message.contains("expansion stopped at this series") })
        #expect(elapsed < Self.hangBound)
    }

    /// SECONDLY with a BYSECOND list, fifty times: 86,400 instances a day each.
    @Test func secondlyWithBySecondListsIsBounded() throws {
        let seconds = (0..<60).map(String.init).joined(separator: ",")
        let text = Self.series(50, rule: "FREQ=SECONDLY;BYSECOND=\(seconds)")
        let (expansion, issues, elapsed) = try Self.readAndExpand(text, from: "2026-06-01", to: "2026-06-02")
        #expect(expansion.occurrences.count <= Self.limits.maximumInstances)
        #expect(issues.contains { $0.kind == .limit })
        #expect(elapsed < Self.hangBound)
    }

    /// A yearly rule on every day, hour, minute and second: 31 million candidates in one
    /// period, which used to be built all at once (1.5 GB) before a single one was looked at.
    @Test func oneYearlyPeriodWithMillionsOfCandidatesIsBounded() throws {
        func list(_ range: ClosedRange<Int>) -> String { range.map(String.init).joined(separator: ",") }
        let rule =
            "FREQ=YEARLY;BYYEARDAY=\(list(1...366));BYHOUR=\(list(0...23));BYMINUTE=\(list(0...59))"
            + ";BYSECOND=\(list(0...59))"
        let text = Self.series(3, rule: rule)
        let (expansion, issues, elapsed) = try Self.readAndExpand(text, from: "2026-06-01", to: "2026-06-02")
        #expect(expansion.occurrences.count <= Self.limits.maximumInstances)
        #expect(issues.contains { $0.kind == .limit })
        #expect(elapsed < Self.hangBound)
    }

    /// COUNT in the billions from 1970 on: no jump to the window, every candidate walked.
    @Test func hugeCountsAreBounded() throws {
        let text = Self.series(20, rule: "FREQ=SECONDLY;COUNT=2000000000", start: "19700101T000000Z")
        let (expansion, issues, elapsed) = try Self.readAndExpand(text, from: "2026-06-01", to: "2026-06-02")
        #expect(expansion.occurrences.isEmpty)
        // The feed's budget stops it, not twenty series' own caps one after the other.
        #expect(issues.contains { $0.kind == .limit && $0.message.contains("expansion stopped at this series") })
        #expect(elapsed < Self.hangBound)
    }

    /// One event with 100,000 RDATEs on the asked day.
    @Test func manyRecurrenceDatesAreBounded() throws {
        let dates = (0..<100_000).map { index in
            let second = index % 86_400
            return String(format: "20260601T%02d%02d%02dZ", second / 3600, second / 60 % 60, second % 60)
        }
        let text = S.feed(
            "BEGIN:VEVENT\nUID:r\nDTSTART:20260601T000000Z\nRDATE:\(dates.joined(separator: ","))\nEND:VEVENT")
        let (expansion, issues, elapsed) = try Self.readAndExpand(text, from: "2026-06-01", to: "2026-06-02")
        #expect(expansion.occurrences.count <= Self.limits.maximumInstances)
        #expect(issues.contains { $0.kind == .limit })
        #expect(elapsed < Self.hangBound)
    }

    /// 60,000 small events on one day, in 3 MB.
    @Test func manyEventsAreBounded() throws {
        let text = S.feed(
            (0..<60_000).map {
                "BEGIN:VEVENT\nUID:e\($0)\nDTSTART:20260601T1200\(String(format: "%02d", $0 % 60))Z\nEND:VEVENT"
            }
            .joined(separator: "\n"))
        let (expansion, issues, elapsed) = try Self.readAndExpand(text, from: "2026-06-01", to: "2026-06-02")
        #expect(expansion.occurrences.count <= Self.limits.maximumInstances)
        #expect(issues.contains { $0.kind == .limit })
        #expect(elapsed < Self.hangBound)
    }

    /// 150,000 BEGIN lines without an END, then as many ENDs of nothing: each END used to look
    /// through every open block (10¹⁰ comparisons), and the nested blocks freed each other
    /// recursively. Unknown components nest (up to the limit); an event that begins inside an
    /// event closes the one before, so 150,000 of those are 150,000 unclosed events, reported
    /// in a bounded number of issues.
    @Test func deepNestingIsIgnoredBeyondTheLimit() throws {
        var text = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:ok\r\nDTSTART:20260601T100000Z\r\nEND:VEVENT\r\n"
        text += String(repeating: "BEGIN:X-NEST\r\n", count: 150_000)
        text += String(repeating: "END:VTODO\r\n", count: 150_000)
        text += "END:VCALENDAR\r\n"
        // What is tested is the nesting limit, not the clock: a loaded machine may take longer
        // than the standard 2 s to read 3.75 MB.
        let (expansion, issues, elapsed) = try Self.readAndExpand(
            text, from: "2026-06-01", to: "2026-06-02", limits: ICSLimits(maximumDuration: .seconds(600)))
        #expect(expansion.occurrences.map(\.uid) == ["ok"])
        #expect(issues.contains { $0.kind == .limit && $0.message.contains("nested more than") })
        #expect(elapsed < Self.hangBound)

        var events = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:ok\r\nDTSTART:20260601T100000Z\r\nEND:VEVENT\r\n"
        events += String(repeating: "BEGIN:VEVENT\r\n", count: 150_000)
        events += String(repeating: "END:VTODO\r\n", count: 150_000)
        events += "END:VCALENDAR\r\n"
        let (kept, reported, took) = try Self.readAndExpand(
            events, from: "2026-06-01", to: "2026-06-02", limits: ICSLimits(maximumDuration: .seconds(600)))
        #expect(kept.occurrences.map(\.uid) == ["ok"])
        #expect(reported.count <= ICSIssue.maximumListed + 1)
        #expect(reported.contains { $0.message.contains("more problems in this feed are not listed") })
        #expect(took < Self.hangBound)
    }

    /// A cancelled budget stops an expansion at once, with what it had.
    @Test func aCancelledBudgetStopsTheExpansion() throws {
        let calendar = try ICSCalendar(text: Self.series(100, rule: "FREQ=MINUTELY"), household: S.amsterdam)
        let budget = ICSWorkBudget(ICSLimits.standard)
        budget.cancel()
        let expansion = calendar.expand(from: S.day("2026-06-01"), to: S.day("2026-06-08"), budget: budget)
        #expect(expansion.occurrences.isEmpty)
        #expect(budget.stop == .cancelled)
        #expect(expansion.issues.contains { $0.kind == .limit && $0.message.contains("cancelled") })
    }

    /// A budget spent stops reading: the events before are kept, the issue says where.
    @Test func aSpentBudgetStopsReading() throws {
        let budget = ICSWorkBudget(maximumSteps: 5, maximumDuration: .seconds(60))
        let calendar = try ICSCalendar(
            text: Self.series(10, rule: "FREQ=DAILY"), household: S.amsterdam, budget: budget)
        #expect(!calendar.isComplete)
        #expect(calendar.events.count < 10)
        #expect(calendar.issues.contains { $0.kind == .limit && $0.message.contains("reading stopped") })
    }

    /// What a real household feed looks like stays whole: a school's year of 3,000 events and
    /// 40 weekly series, over the longest window an answer may ask (366 days).
    @Test func aLargeRealFeedIsNotCut() throws {
        var body: [String] = []
        for index in 0..<3_000 {
            let day = LocalDate(year: 2024, month: 1, day: 1).adding(days: index / 2)
            let stamp = day.description.replacingOccurrences(of: "-", with: "")
            body.append(
                "BEGIN:VEVENT\nUID:one\(index)\nDTSTART;TZID=Europe/Amsterdam:\(stamp)T\(10 + index % 2 * 4)0000"
                    + "\nDURATION:PT1H\nSUMMARY:Les \(index)\nEND:VEVENT")
        }
        for index in 0..<40 {
            body.append(
                "BEGIN:VEVENT\nUID:week\(index)\nDTSTART;TZID=Europe/Amsterdam:20240902T0\(8 + index % 2)3000"
                    + "\nDURATION:PT45M\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR\nEND:VEVENT")
        }
        let (expansion, issues, _) = try Self.readAndExpand(
            S.feed(body.joined(separator: "\n")), from: "2025-01-01", to: "2026-01-02")
        #expect(!issues.contains { $0.kind == .limit })
        #expect(expansion.occurrences.count > 10_000)
    }
}
