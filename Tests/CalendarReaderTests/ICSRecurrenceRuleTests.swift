import CalendarReader
import Testing

@Suite("ICS RRULE parsing")
struct ICSRecurrenceRuleTests {
    @Test func parsesEveryPart() throws {
        let rule = try ICSRecurrenceRule(
            parsing:
                "FREQ=YEARLY;INTERVAL=2;COUNT=5;BYMONTH=1,3;BYDAY=-1SU,2MO,+3TU,WE;BYMONTHDAY=-1,15;BYYEARDAY=100,-1;"
                + "BYWEEKNO=20,-1;BYHOUR=9;BYMINUTE=0,30;BYSECOND=0;BYSETPOS=-1;WKST=SU;X-NAME=ignored")
        #expect(rule.frequency == .yearly)
        #expect(rule.interval == 2)
        #expect(rule.count == 5)
        #expect(rule.byMonth == [1, 3])
        #expect(
            rule.byDay == [
                .init(ordinal: -1, weekday: 6), .init(ordinal: 2, weekday: 0), .init(ordinal: 3, weekday: 1),
                .init(weekday: 2),
            ])
        #expect(rule.byMonthDay == [-1, 15])
        #expect(rule.byYearDay == [100, -1])
        #expect(rule.byWeekNo == [20, -1])
        #expect(rule.byHour == [9])
        #expect(rule.byMinute == [0, 30])
        #expect(rule.bySecond == [0])
        #expect(rule.bySetPos == [-1])
        #expect(rule.weekStart == 6)
    }

    @Test func untilAsDateOrUTCDateTime() throws {
        #expect(
            try ICSRecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20261231").until == .date(ICSTestSupport.wall("20261231")))
        #expect(
            try ICSRecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20261231T230000Z").until
                == .dateTime(ICSTestSupport.wall("20261231T230000"), utc: true))
    }

    @Test(arguments: [
        "BYDAY=MO", "FREQ=SOMETIMES", "FREQ=DAILY;INTERVAL=0", "FREQ=DAILY;BYMONTH=13", "FREQ=DAILY;BYMONTHDAY=0",
        "FREQ=DAILY;BYDAY=XX", "FREQ=DAILY;UNTIL=tomorrow", "FREQ=DAILY;COUNT=-1", "FREQ=MONTHLY;BYDAY=60MO", "",
        "FREQ=DAILY;BYHOUR=24", "FREQ=HOURLY;INTERVAL=9223372036854775807",
    ])
    func refusesBrokenRules(_ text: String) {
        #expect(throws: ICSRecurrenceRule.ParseError.self) { _ = try ICSRecurrenceRule(parsing: text) }
    }

    /// What calendar apps read past: a part without a value, a part RFC 5545 does not have, the
    /// property name written twice, a COUNT that is no number beside an UNTIL. Each is noted.
    @Test func readsPastWhatAppsReadPastWithANote() throws {
        let noValue = try ICSRecurrenceRule(parsing: "FREQ=DAILY;COUNT")
        #expect(noValue.frequency == .daily && noValue.notes.count == 1)
        let typo = try ICSRecurrenceRule(parsing: "FREQ=WEEKLY;UNTL=20260115T100000Z")
        #expect(typo.until == nil && typo.notes.first?.contains("UNTL") == true)
        let twice = try ICSRecurrenceRule(parsing: "RRULE:AnythingRandom;FREQ=WEEKLY;BYDAY=MO")
        #expect(twice.frequency == .weekly && twice.byDay.count == 1 && twice.notes.count == 1)
        let count = try ICSRecurrenceRule(parsing: "FREQ=DAILY;COUNT=-1;UNTIL=20260107T100000Z")
        #expect(count.count == nil && count.until != nil && count.notes.first?.contains("COUNT") == true)
        #expect(try ICSRecurrenceRule(parsing: "FREQ=DAILY;X-NAME=1").notes.isEmpty)
    }
}
