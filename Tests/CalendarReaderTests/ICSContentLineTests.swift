import CalendarReader
import Foundation
import Testing

@Suite("ICS content lines")
struct ICSContentLineTests {
    @Test func unfoldsCRLFAndLFWithSpaceOrTab() {
        let text = "BEGIN:VCALENDAR\r\nSUMMARY:Hello\r\n  wor\r\n\tld\nX:1\n\nEND:VCALENDAR"
        let lines = ICSUnfolder.unfold(Array(text.utf8))
        #expect(lines.map(\.text) == ["BEGIN:VCALENDAR", "SUMMARY:Hello world", "X:1", "END:VCALENDAR"])
        #expect(lines.map(\.number) == [1, 2, 5, 7])
    }

    @Test func unfoldingJoinsASplitUTF8Sequence() {
        // "é" is C3 A9; Outlook folds at 75 octets, which can fall between the two bytes.
        let bytes: [UInt8] = Array("SUMMARY:Caf".utf8) + [0xC3, 0x0D, 0x0A, 0x20, 0xA9] + Array("\r\n".utf8)
        #expect(ICSUnfolder.unfold(bytes).map(\.text) == ["SUMMARY:Café"])
    }

    @Test func byteOrderMarkIsDropped() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("BEGIN:VCALENDAR\r\n".utf8)
        #expect(ICSUnfolder.unfold(bytes).map(\.text) == ["BEGIN:VCALENDAR"])
    }

    @Test func textEscapes() {
        #expect(ICSText.unescape(#"a\nb\Nc\,d\;e\\f"#) == "a\nb\nc,d;e\\f")
        #expect(ICSText.unescape(#"trailing\"#) == "trailing\\")
        #expect(ICSText.splitList(#"a\,b,c"#) == [#"a\,b"#, "c"])
    }

    @Test func parametersQuotedAndMultiValued() throws {
        let line = try #require(
            ICSContentLine(
                parsing: #"attendee;Member="mailto:a@x.org","mailto:b@x.org";CN="Doe; John";ROLE=CHAIR:mailto:j@x.org"#)
        )
        #expect(line.name == "ATTENDEE")
        #expect(line.parameters["MEMBER"] == ["mailto:a@x.org", "mailto:b@x.org"])
        #expect(line.parameter("CN") == "Doe; John")
        #expect(line.parameter("ROLE") == "CHAIR")
        #expect(line.value == "mailto:j@x.org")
    }

    @Test func quotedParameterMayHoldAColon() throws {
        let line = try #require(ICSContentLine(parsing: #"DTSTART;TZID="(UTC+01:00) Amsterdam":20260101T090000"#))
        #expect(line.parameter("TZID") == "(UTC+01:00) Amsterdam")
        #expect(line.value == "20260101T090000")
    }

    @Test func caretEncodingInParameters() throws {
        let line = try #require(ICSContentLine(parsing: #"X-A;X-P="a^'b^nc^^":v"#))
        #expect(line.parameter("X-P") == "a\"b\nc^")
    }

    @Test func malformedLinesAreRefused() {
        #expect(ICSContentLine(parsing: "no colon here") == nil)
        #expect(ICSContentLine(parsing: ":value") == nil)
        #expect(ICSContentLine(parsing: #"X;P="unterminated:v"#) == nil)
        #expect(ICSContentLine(parsing: "X;P:v") == nil)
    }

    @Test func valueKeepsColonsAndSemicolons() throws {
        let line = try #require(ICSContentLine(parsing: "DESCRIPTION:see http://x.org/a;b:c"))
        #expect(line.value == "see http://x.org/a;b:c")
    }
}
