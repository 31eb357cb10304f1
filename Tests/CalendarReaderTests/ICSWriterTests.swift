import CalendarReader
import Foundation
import Model
import Testing

/// The household's calendar feed writes text that came from backends: whatever control
/// characters it holds, each TEXT value stays one property of one VEVENT, read back by our own
/// reader as the text (line breaks as line breaks, other controls gone).
@Suite("ICS writer")
struct ICSWriterTests {
    static let hostile = [
        "Lunch\r", "Lunch\rBEGIN:VEVENT", "Lunch\r\nBEGIN:VEVENT\r\nUID:evil", "Lunch\nEND:VEVENT", "nul\u{0}byte",
        "bell\u{7}and\u{1B}[31mescape", "del\u{7F}and\u{85}next\u{9C}", "line\u{2028}separator", "tab\tkept",
        "\r\r\n\n", "a;b,c\\d",
    ]

    func feed(summary: String) -> String {
        var writer = ICSWriter()
        writer.lines(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VEVENT"])
        writer.text("UID", "u\r1")
        writer.line("DTSTART:20260601T100000Z")
        writer.text("SUMMARY", summary)
        writer.text("DESCRIPTION", summary + summary)
        writer.line("X-RAW:\(summary)")
        writer.lines(["END:VEVENT", "END:VCALENDAR"])
        return writer.text
    }

    @Test(arguments: hostile)
    func controlCharactersNeverReachTheOutputRaw(summary: String) throws {
        let text = feed(summary: summary)
        // Line by line: every line ends in CRLF, holds no other control (a tab aside), and the
        // lines are exactly the ones written (a fold continues with a space).
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.last == "")
        for line in lines.dropLast() {
            #expect(
                !line.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || (0x7F...0x9F).contains($0.value) })
        }
        let starts = lines.dropLast().filter { !$0.hasPrefix(" ") }.map { $0.prefix { $0 != ":" && $0 != ";" } }
        #expect(
            starts == [
                "BEGIN", "VERSION", "PRODID", "BEGIN", "UID", "DTSTART", "SUMMARY", "DESCRIPTION", "X-RAW", "END",
                "END",
            ])

        let calendar = try ICSCalendar(text: text, household: TimeZone(identifier: "UTC")!)
        #expect(calendar.events.count == 1)
        let event = try #require(calendar.events.first)
        let expected = Self.readBack(summary)
        #expect(event.summary == expected)
        #expect(event.description == expected + expected)
        #expect(event.uid == "u\n1")
    }

    /// What a reader should see of `text`: every line break one `\n`, other controls gone.
    static func readBack(_ text: String) -> String {
        var out = ""
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            if scalar == "\n" && afterCR { continue }
            if ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalar) {
                out += "\n"
            } else if (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value) {
                continue
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
