import CalendarReader
import ChildProcess
import Foundation
import Model
import Testing

/// Real-world calendars daygate's tests did not choose (Tests/Fixtures/ics/corpus: other
/// projects' test suites and exports from Google, Outlook, Apple, Nextcloud and others, see its
/// SOURCES.md), read as python's `icalendar` + `recurring-ical-events` read them: every local
/// day of each file's window, in a zone west of UTC, one east and one near the date line. A
/// file may differ only when `differences.json` lists it with the RFC's reason (and
/// docs/backends/ics.md explains it); a listed file that agrees again must be taken off.
@Suite("ICS corpus against recurring-ical-events")
struct ICSCorpusTests {
    struct Entry: Decodable, Sendable {
        var file: String
        var producer: String
        var from: String
        var to: String
    }

    struct Difference: Decodable, Sendable {
        var file: String
        /// nil: in every zone.
        var zones: [String]?
        var reason: String

        func covers(_ file: String, _ zone: String) -> Bool {
            self.file == file && (zones?.contains(zone) ?? true)
        }
    }

    static let zones = ["America/New_York", "Europe/Amsterdam", "Pacific/Auckland"]
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ics/corpus")

    static let manifest: [Entry] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }()

    static let differences: [Difference] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("differences.json")) else { return [] }
        return (try? JSONDecoder().decode([Difference].self, from: data)) ?? []
    }()

    /// One case per file and zone, in this order.
    static var cases: [(entry: Entry, zone: String)] {
        manifest.flatMap { entry in zones.map { (entry, $0) } }
    }

    /// The reference's answers to every case, from one python3 run.
    static func reference() async throws -> [[String: [[String: String]]]] {
        let arguments = cases.map {
            [folder.appendingPathComponent($0.entry.file).path, $0.zone, $0.entry.from, $0.entry.to]
        }
        let run = try await ChildProcess.run([
            "python3", ICSReferenceTests.script.path, "--batch",
            String(decoding: try JSONEncoder().encode(arguments), as: UTF8.self),
        ])
        guard run.status == 0 else {
            throw ICSReferenceTests.ReferenceUnavailable(message: "reference script failed: \(run.error.prefix(2000))")
        }
        return try JSONDecoder().decode([[String: [[String: String]]]].self, from: run.output)
    }

    /// The first local day on which daygate and the reference disagree, with both lists; nil
    /// when they agree on every day. `days` counts the days compared and those that agree.
    static func firstDifference(
        _ entry: Entry, zone name: String, reference: [String: [[String: String]]], days: inout (all: Int, agree: Int)
    ) throws -> String? {
        let zone = try #require(TimeZone(identifier: name))
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(entry.file)))
        let calendar: ICSCalendar
        do {
            calendar = try ICSCalendar(bytes: bytes, household: zone)
        } catch {
            return "daygate cannot read it: \(error)"
        }
        let expansion = calendar.expand(from: ICSTestSupport.day(entry.from), to: ICSTestSupport.day(entry.to))
        var first: String?
        for day in expansion.days {
            let (ours, theirs) = ICSTestSupport.referenceLines(day, zone: zone, reference: reference)
            days.all += 1
            if ours == theirs {
                days.agree += 1
            } else if first == nil {
                first = "\(day.date): daygate \(ours) — recurring-ical-events \(theirs)"
            }
        }
        return first
    }

    @Test func theCorpusHoldsAtLeastSixtyCalendarsFromSeveralProducers() {
        #expect(Self.manifest.count >= 60, "Tests/Fixtures/ics/corpus/manifest.json lists \(Self.manifest.count)")
        #expect(Set(Self.manifest.map(\.producer)).count >= 4)
        for difference in Self.differences {
            #expect(Self.manifest.contains { $0.file == difference.file }, "\(difference.file) is not in the corpus")
            #expect(!difference.reason.isEmpty)
        }
    }

    @Test func everyFileAgreesWithThePeerOrItsDifferenceIsListed() async throws {
        let reference = try await Self.reference()
        var perZone: [String: (files: Int, agree: Int, days: Int, daysAgree: Int)] = [:]
        for (index, item) in Self.cases.enumerated() {
            var days = (all: 0, agree: 0)
            let difference = try Self.firstDifference(
                item.entry, zone: item.zone, reference: reference[index], days: &days)
            let listed = Self.differences.contains { $0.covers(item.entry.file, item.zone) }
            if let difference, !listed {
                Issue.record("\(item.entry.file) in \(item.zone) differs: \(difference)")
            } else if difference == nil, listed {
                Issue.record("\(item.entry.file) in \(item.zone) agrees now: take it off differences.json")
            }
            var zone = perZone[item.zone, default: (0, 0, 0, 0)]
            zone.files += 1
            zone.agree += difference == nil ? 1 : 0
            zone.days += days.all
            zone.daysAgree += days.agree
            perZone[item.zone] = zone
        }
        for name in Self.zones {
            guard let zone = perZone[name], zone.files > 0 else { continue }
            let files = Double(zone.agree) / Double(zone.files) * 100
            let days = Double(zone.daysAgree) / Double(max(1, zone.days)) * 100
            print(
                "ICS corpus agreement in \(name): \(zone.agree)/\(zone.files) files (\(String(format: "%.1f", files))%), "
                    + "\(zone.daysAgree)/\(zone.days) days (\(String(format: "%.2f", days))%)")
        }
    }
}
