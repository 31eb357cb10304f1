import CalendarReader
import ChildProcess
import Foundation
import Model
import Testing

/// daygate's occurrences per local day against python `icalendar` + `recurring-ical-events`
/// (Tests/ICS/reference_occurrences.py), for real and hand-written fixtures, in three zones,
/// over windows that hold the 2026 DST changes.
@Suite("ICS reference comparison")
struct ICSReferenceTests {
    struct Case: Sendable, CustomStringConvertible {
        let fixture: String
        let zone: String
        let from: String
        let to: String

        var description: String { "\(fixture) in \(zone) \(from)..<\(to)" }
    }

    static let zones = ["Europe/Amsterdam", "America/Los_Angeles", "Pacific/Auckland"]
    static let windows2026 = [
        ("2026-03-05", "2026-04-10"),  // US (8 Mar), EU (29 Mar) spring changes, Auckland (5 Apr)
        ("2026-09-20", "2026-11-05"),  // Auckland (27 Sep), EU (25 Oct), US (1 Nov)
    ]

    static let cases: [Case] =
        ["school_2026.ics", "dst_crossings.ics", "outlook_windows_zones.ics"].flatMap { fixture in
            zones.flatMap { zone in windows2026.map { Case(fixture: fixture, zone: zone, from: $0.0, to: $0.1) } }
        } + [
            Case(
                fixture: "icaljs_recur_instances.ics", zone: "America/Los_Angeles", from: "2012-09-25", to: "2013-03-01"
            ),
            Case(fixture: "icaljs_recur_instances.ics", zone: "Europe/Amsterdam", from: "2023-11-01", to: "2023-12-10"),
            Case(
                fixture: "icalendar_rdate_period_khal.ics", zone: "America/Chicago", from: "2018-03-20",
                to: "2018-08-05"),
            Case(
                fixture: "icalendar_globally_unique_tzid.ics", zone: "Europe/Amsterdam", from: "2020-04-25",
                to: "2020-04-28"),
            Case(
                fixture: "icalendar_america_new_york.ics", zone: "Pacific/Auckland", from: "2014-08-28",
                to: "2014-08-31"),
            Case(fixture: "icalendar_timezoned.ics", zone: "Europe/Amsterdam", from: "2012-02-12", to: "2012-02-19"),
        ]

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ICS/reference_occurrences.py")

    /// The reference's answers to every case, from one python3 run shared by the cases (one
    /// interpreter start instead of one per case, so the comparison does not crowd the CPUs the
    /// suite's timing tests run on).
    actor Reference {
        static let shared = Reference()
        private var answers: Task<[[String: [[String: String]]]], any Error>?

        func answer(_ index: Int) async throws -> [String: [[String: String]]] {
            let batch =
                answers
                ?? Task {
                    let check = try await ChildProcess.run(["python3", "-c", "import icalendar, recurring_ical_events"])
                    guard check.status == 0 else {
                        throw ReferenceUnavailable(
                            message:
                                "python3 with the modules icalendar and recurring-ical-events is needed; run `make test`, which installs them (\(check.error.prefix(200)))"
                        )
                    }
                    let cases = ICSReferenceTests.cases.map {
                        [ICSTestSupport.fixtureURL($0.fixture).path, $0.zone, $0.from, $0.to]
                    }
                    let arguments = String(decoding: try JSONEncoder().encode(cases), as: UTF8.self)
                    let run = try await ChildProcess.run([
                        "python3", ICSReferenceTests.script.path, "--batch", arguments,
                    ])
                    guard run.status == 0 else {
                        throw ReferenceUnavailable(message: "reference script failed: \(run.error)")
                    }
                    return try JSONDecoder().decode([[String: [[String: String]]]].self, from: run.output)
                }
            answers = batch
            return try await batch.value[index]
        }
    }

    struct ReferenceUnavailable: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    @Test(arguments: cases.indices)
    func matchesReference(_ index: Int) async throws {
        let testCase = Self.cases[index]
        let reference = try await Reference.shared.answer(index)

        let zone = try #require(TimeZone(identifier: testCase.zone))
        let calendar = try ICSCalendar(bytes: try ICSTestSupport.fixture(testCase.fixture), household: zone)
        let expansion = calendar.expand(from: ICSTestSupport.day(testCase.from), to: ICSTestSupport.day(testCase.to))
        var compared = 0
        for day in expansion.days {
            let (ours, theirs) = ICSTestSupport.referenceLines(day, zone: zone, reference: reference)
            #expect(ours == theirs, "\(testCase) on \(day.date)")
            compared += theirs.count
        }
        #expect(compared > 0, "the reference found nothing in \(testCase); the window is useless")
    }
}
