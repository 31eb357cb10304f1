import CalendarReader
import Testing

/// RFC 5545 §3.8.5.3 examples and the edge cases around them, on wall-clock time.
@Suite("ICS recurrence expansion")
struct ICSRecurrenceExpanderTests {
    func expand(
        _ rule: String, from start: String, until: String? = nil, window: (String, String)? = nil,
        maximumInstances: Int = 10_000
    ) throws -> [String] {
        try expansion(rule, from: start, until: until, window: window, maximumInstances: maximumInstances).instances
            .map(\.description)
    }

    func expansion(
        _ rule: String, from start: String, until: String? = nil, window: (String, String)? = nil,
        maximumInstances: Int = 10_000
    ) throws -> ICSRecurrenceExpander.Expansion {
        let parsed = try ICSRecurrenceRule(parsing: rule)
        var untilWall = until.map(ICSTestSupport.wall)
        if untilWall == nil, case .dateTime(let wall, _)? = parsed.until { untilWall = wall }
        if untilWall == nil, case .date(let wall)? = parsed.until { untilWall = wall.adding(seconds: 86_399) }
        let expander = ICSRecurrenceExpander(
            rule: parsed, start: ICSTestSupport.wall(start), until: untilWall, maximumInstances: maximumInstances)
        let lower = ICSTestSupport.wall(window?.0 ?? start)
        let upper = ICSTestSupport.wall(window?.1 ?? "21000101T000000")
        return expander.instances(from: lower, to: upper)
    }

    @Test func dailyCount() throws {
        #expect(
            try expand("FREQ=DAILY;COUNT=3", from: "19970902T090000") == [
                "19970902T090000", "19970903T090000", "19970904T090000",
            ])
    }

    @Test func intervalAndUntil() throws {
        #expect(
            try expand("FREQ=DAILY;INTERVAL=10;UNTIL=19971001", from: "19970902T090000") == [
                "19970902T090000", "19970912T090000", "19970922T090000",
            ])
    }

    @Test func monthlyFirstFriday() throws {
        #expect(
            try expand("FREQ=MONTHLY;COUNT=4;BYDAY=1FR", from: "19970905T090000") == [
                "19970905T090000", "19971003T090000", "19971107T090000", "19971205T090000",
            ])
    }

    @Test func monthlySecondToLastMonday() throws {
        #expect(
            try expand("FREQ=MONTHLY;COUNT=6;BYDAY=-2MO", from: "19970922T090000") == [
                "19970922T090000", "19971020T090000", "19971117T090000", "19971222T090000", "19980119T090000",
                "19980216T090000",
            ])
    }

    @Test func negativeMonthDay() throws {
        #expect(
            try expand("FREQ=MONTHLY;BYMONTHDAY=-3;COUNT=4", from: "19970928T090000") == [
                "19970928T090000", "19971029T090000", "19971128T090000", "19971229T090000",
            ])
    }

    @Test func fridayThe13th() throws {
        #expect(
            try expand(
                "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", from: "19970902T090000",
                window: ("19970903T000000", "20001231T000000"))
                == ["19980213T090000", "19980313T090000", "19981113T090000", "19990813T090000", "20001013T090000"])
    }

    @Test func yearlyTwentiethMonday() throws {
        #expect(
            try expand("FREQ=YEARLY;BYDAY=20MO;COUNT=3", from: "19970519T090000") == [
                "19970519T090000", "19980518T090000", "19990517T090000",
            ])
    }

    @Test func weekNumberTwenty() throws {
        #expect(
            try expand("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=3", from: "19970512T090000") == [
                "19970512T090000", "19980511T090000", "19990517T090000",
            ])
    }

    @Test func weekOneMayStartInDecember() throws {
        // ISO week 1 of 2026 starts on Monday 2025-12-29.
        #expect(
            try expand(
                "FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO", from: "20241230T090000",
                window: ("20250101T000000", "20270101T000000"))
                == ["20251229T090000"])
    }

    @Test func thursdaysInMarch() throws {
        #expect(
            try expand(
                "FREQ=YEARLY;BYMONTH=3;BYDAY=TH", from: "19970313T090000",
                window: ("19970101T000000", "19980401T000000")) == [
                    "19970313T090000", "19970320T090000", "19970327T090000", "19980305T090000", "19980312T090000",
                    "19980319T090000", "19980326T090000",
                ])
    }

    @Test func lastWorkdayWithSetPos() throws {
        #expect(
            try expand("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=4", from: "19970930T090000") == [
                "19970930T090000", "19971031T090000", "19971128T090000", "19971231T090000",
            ])
        #expect(
            try expand("FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3", from: "19970904T090000") == [
                "19970904T090000", "19971007T090000", "19971106T090000",
            ])
    }

    @Test func weekStartChangesWeeklyIntervals() throws {
        #expect(
            try expand("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", from: "19970805T090000") == [
                "19970805T090000", "19970810T090000", "19970819T090000", "19970824T090000",
            ])
        #expect(
            try expand("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", from: "19970805T090000") == [
                "19970805T090000", "19970817T090000", "19970819T090000", "19970831T090000",
            ])
    }

    @Test func invalidDatesAreSkipped() throws {
        #expect(
            try expand("FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", from: "20070115T090000") == [
                "20070115T090000", "20070130T090000", "20070215T090000", "20070315T090000", "20070330T090000",
            ])
        #expect(
            try expand("FREQ=MONTHLY;COUNT=3", from: "20260131T090000") == [
                "20260131T090000", "20260331T090000", "20260531T090000",
            ])
        #expect(try expand("FREQ=YEARLY;COUNT=2", from: "20240229T090000") == ["20240229T090000", "20280229T090000"])
    }

    @Test func yearDays() throws {
        #expect(
            try expand("FREQ=YEARLY;INTERVAL=3;COUNT=5;BYYEARDAY=1,100,200", from: "19970101T090000") == [
                "19970101T090000", "19970410T090000", "19970719T090000", "20000101T090000", "20000409T090000",
            ])
        #expect(
            try expand("FREQ=YEARLY;BYYEARDAY=-1;COUNT=2", from: "20241231T090000") == [
                "20241231T090000", "20251231T090000",
            ])
    }

    @Test func subDailyFrequencies() throws {
        #expect(
            try expand("FREQ=HOURLY;INTERVAL=3", from: "19970902T090000", until: "19970902T170000") == [
                "19970902T090000", "19970902T120000", "19970902T150000",
            ])
        #expect(
            try expand("FREQ=MINUTELY;INTERVAL=15;COUNT=6", from: "19970902T090000") == [
                "19970902T090000", "19970902T091500", "19970902T093000", "19970902T094500", "19970902T100000",
                "19970902T101500",
            ])
        #expect(
            try expand("FREQ=SECONDLY;COUNT=3", from: "20260101T000059") == [
                "20260101T000059", "20260101T000100", "20260101T000101",
            ])
        let byHour = try expand("FREQ=DAILY;BYHOUR=9,16;BYMINUTE=0,40;COUNT=5", from: "19970902T090000")
        #expect(
            byHour == ["19970902T090000", "19970902T094000", "19970902T160000", "19970902T164000", "19970903T090000"])
        #expect(
            try expand("FREQ=HOURLY;BYHOUR=9,10;BYMINUTE=30;COUNT=3", from: "20260101T090000") == [
                "20260101T090000", "20260101T093000", "20260101T103000",
            ])
    }

    @Test func dtstartCountsEvenWhenItDoesNotMatch() throws {
        // RFC 5545: DTSTART is always the first instance (a Wednesday start of a Monday rule).
        #expect(
            try expand("FREQ=WEEKLY;BYDAY=MO;COUNT=2", from: "20260107T090000") == [
                "20260107T090000", "20260112T090000",
            ])
    }

    @Test func windowJumpsAheadWithoutCount() throws {
        let instances = try expand(
            "FREQ=DAILY;INTERVAL=7", from: "19900101T080000", window: ("20260301T000000", "20260315T000000"))
        // 1990-01-01 + 7k days; 2026-03-02 is a Monday like 1990-01-01.
        #expect(instances == ["20260302T080000", "20260309T080000"])
        let monthly = try expand(
            "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=1", from: "20000101T080000",
            window: ("20260101T000000", "20270101T000000"))
        #expect(monthly == ["20260401T080000", "20260901T080000"])
    }

    @Test func unboundedRuleStopsAtTheCap() throws {
        let result = try expansion("FREQ=SECONDLY", from: "20260101T000000", maximumInstances: 10_000)
        #expect(result.instances.count == 10_000)
        #expect(result.truncated)
        let impossible = try expansion("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", from: "20260101T000000")
        #expect(impossible.instances.map(\.description) == ["20260101T000000"])
        #expect(!impossible.truncated)
    }
}
