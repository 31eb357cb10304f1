import Foundation
import Model

/// The demo feeds, generated from the seed day: events today and in the week after it, written the
/// way each producer writes them. Everything derives from the seed day and zone, so a restart gives
/// byte-identical feeds (and the same ETags).
enum ICSSeed {
    /// A seeded feed: its name (see ``ICSSimulator/demoCalendars``), body and last change.
    struct Feed: Sendable {
        var name: String
        var body: String
        /// Seconds since 1970.
        var lastModified: Int64
    }

    static let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!

    static func feeds(seedDay: String, timeZone: TimeZone) -> [Feed] {
        guard let d0 = LocalDate(seedDay)?.dayNumber else { return [] }
        let schoolChanged = Int64(d0 - 1) * 86_400 + 16 * 3600 + 42 * 60 + 7
        let holidaysChanged = Int64(d0 - 40) * 86_400 + 2 * 3600 + 13 * 60 + 55
        let clubChanged = Int64(d0 - 2) * 86_400 + 20 * 3600 + 11 * 60 + 45
        let workChanged = Int64(d0 - 1) * 86_400 + 18 * 3600 + 3 * 60 + 31
        return [
            Feed(
                name: "school", body: school(d0, seedDay: seedDay, changed: schoolChanged), lastModified: schoolChanged),
            Feed(
                name: "holidays", body: holidays(d0, seedDay: seedDay, changed: holidaysChanged),
                lastModified: holidaysChanged),
            Feed(name: "club", body: club(d0, seedDay: seedDay, changed: clubChanged), lastModified: clubChanged),
            Feed(
                name: "work", body: work(d0, seedDay: seedDay, timeZone: timeZone, changed: workChanged),
                lastModified: workChanged),
        ]
    }

    // MARK: - Time zones

    /// Europe/Amsterdam as Google, Apple and most libraries write it.
    static let amsterdamTimeZone = [
        "BEGIN:VTIMEZONE", "TZID:Europe/Amsterdam", "X-LIC-LOCATION:Europe/Amsterdam",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST", "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET", "DTSTART:19701025T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
        "END:VTIMEZONE",
    ]

    /// Outlook's Windows zone name for Amsterdam, Berlin, Rome, …
    static let outlookZone = "W. Europe Standard Time"

    /// Outlook's `VTIMEZONE` for ``outlookZone`` (the 1601 epoch, no TZNAME).
    static let outlookTimeZone = [
        "BEGIN:VTIMEZONE", "TZID:\(outlookZone)",
        "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100",
        "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "END:STANDARD",
        "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
        "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "END:DAYLIGHT",
        "END:VTIMEZONE",
    ]

    // MARK: - School

    /// The Friday ending the school year: mid-July, at least five weeks after the seed day.
    static func schoolYearEnd(_ d0: Int) -> Int {
        let year = Civil.date(fromDays: d0).year
        let end = ICSTime.onOrBefore(Civil.days(year: year, month: 7, day: 17), weekday: 5)
        return end >= d0 + 35 ? end : ICSTime.onOrBefore(Civil.days(year: year + 1, month: 7, day: 17), weekday: 5)
    }

    /// The Dutch name of a school holiday starting on `days`.
    static func holidayName(_ days: Int) -> String {
        switch Civil.date(fromDays: days).month {
        case 10: "Herfstvakantie"
        case 12, 1: "Kerstvakantie"
        case 2, 3: "Voorjaarsvakantie"
        case 4, 5: "Meivakantie"
        case 7, 8: "Zomervakantie"
        default: "Vakantie"
        }
    }

    static func school(_ d0: Int, seedDay: String, changed: Int64) -> String {
        let ams = SeedCalendar(seedDays: d0, timeZone: amsterdam)
        func off(_ day: Int) -> Int { day - d0 }
        let tz = "TZID=Europe/Amsterdam"
        var rng = SeedRandom(seed: "ics|school|\(seedDay)")
        func uid() -> String { rng.uuid() + "@regenboog.example" }
        let stamp = ICSTime.utc(changed)
        let created = ICSTime.utc(changed - 12 * 86_400 - 3 * 3600 - 17 * 60)

        // The gym series: Tuesdays and Thursdays from a few weeks back until the end of the year.
        let seriesStart = ICSTime.onOrBefore(d0 - 21, weekday: 2)
        let yearEnd = schoolYearEnd(d0)
        let occurrences = (seriesStart...yearEnd).filter { [2, 4].contains(ICSTime.weekday($0)) }
        let upcoming = occurrences.filter { $0 > d0 }
        let moved = upcoming[0]  // one hour later (RECURRENCE-ID)
        let studyDay = upcoming[1]  // a study day: no gym (EXDATE)
        let holidayStart = ICSTime.onOrAfter(d0 + 14, weekday: 6)
        let holidayEnd = holidayStart + 9  // Saturday to the Sunday a week later, exclusive end
        let excluded = [studyDay] + occurrences.filter { $0 >= holidayStart && $0 < holidayEnd }
        let gymUID = uid()

        var w = ICSWriter()
        w.lines([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Basisschool De Regenboog//Schoolkalender 1.0//NL",
            "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
        ])
        w.text("X-WR-CALNAME", "Basisschool De Regenboog")
        w.text("X-WR-CALDESC", "Activiteiten, vrije dagen en vakanties van Basisschool De Regenboog, Amsterdam-Noord")
        w.lines(["X-WR-TIMEZONE:Europe/Amsterdam", "X-PUBLISHED-TTL:PT1H", "REFRESH-INTERVAL;VALUE=DURATION:PT1H"])
        w.lines(amsterdamTimeZone)

        func begin(_ uid: String, sequence: Int = 0) {
            w.lines(["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:\(stamp)", "CREATED:\(created)", "LAST-MODIFIED:\(stamp)"])
            w.line("SEQUENCE:\(sequence)")
        }
        func timed(_ day: Int, _ start: (Int, Int), _ endDay: Int, _ end: (Int, Int)) {
            w.line("DTSTART;\(tz):\(ICSTime.local(day, start.0, start.1))")
            w.line("DTEND;\(tz):\(ICSTime.local(endDay, end.0, end.1))")
        }
        func allDay(_ day: Int, until: Int) {
            w.lines(["DTSTART;VALUE=DATE:\(ICSTime.date(day))", "DTEND;VALUE=DATE:\(ICSTime.date(until))"])
        }

        // 1. The weekly gym class, with its exceptions.
        begin(gymUID)
        timed(seriesStart, (8, 30), seriesStart, (9, 15))
        w.line("RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=\(ICSTime.utc(ams.utcSeconds(off(yearEnd), 23, 59, 59)))")
        w.line("EXDATE;\(tz):" + excluded.map { ICSTime.local($0, 8, 30) }.joined(separator: ","))
        w.text("SUMMARY", "Gymles groep 5")
        w.text("LOCATION", "Gymzaal Kometensingel, Kometensingel 160, Amsterdam")
        w.text(
            "DESCRIPTION",
            "Gymkleren en gymschoenen (met lichte zolen) meenemen; geen sieraden.\nBij regen verzamelen in de hal.")
        w.line("END:VEVENT")
        // 2. One class moved by an hour.
        begin(gymUID, sequence: 1)
        w.line("RECURRENCE-ID;\(tz):\(ICSTime.local(moved, 8, 30))")
        timed(moved, (9, 30), moved, (10, 15))
        w.text("SUMMARY", "Gymles groep 5 (een uur later)")
        w.text("LOCATION", "Gymzaal Kometensingel, Kometensingel 160, Amsterdam")
        w.text("DESCRIPTION", "Door een vergadering van het team begint de gymles vandaag om 09:30.")
        w.line("END:VEVENT")
        // 3. Today, all day.
        begin(uid())
        allDay(d0, until: d0 + 1)
        w.text("SUMMARY", "Luizencontrole")
        w.text("DESCRIPTION", "Graag geen vlechten of gel in het haar.")
        w.line("TRANSP:TRANSPARENT")
        w.line("END:VEVENT")
        // 4. Today, in the morning.
        begin(uid())
        timed(d0, (9, 0), d0, (11, 30))
        w.text("SUMMARY", "Schoolfotograaf")
        w.text("LOCATION", "Speellokaal")
        w.text("DESCRIPTION", "Broertjes en zusjes op de foto: vanaf 11:00, aanmelden bij de administratie.")
        w.line("END:VEVENT")
        // 5. A study day (the gym class is excluded that day).
        begin(uid())
        allDay(studyDay, until: studyDay + 1)
        w.text("SUMMARY", "Studiedag (leerlingen vrij)")
        w.line("TRANSP:TRANSPARENT")
        w.line("END:VEVENT")
        // 6. Cancelled.
        begin(uid(), sequence: 2)
        timed(d0 + 2, (19, 30), d0 + 2, (21, 0))
        w.text("SUMMARY", "Ouderavond groep 5")
        w.text("LOCATION", "Lokaal 5")
        w.line("STATUS:CANCELLED")
        w.line("END:VEVENT")
        // 7. The camp night, across midnight.
        begin(uid())
        timed(d0 + 4, (19, 0), d0 + 5, (9, 30))
        w.text("SUMMARY", "Kampnacht groep 8")
        w.text("LOCATION", "Scoutinggebouw De Meeuwen, Meeuwenlaan 12, Amsterdam")
        w.text("DESCRIPTION", "Slaapzak, zaklamp en knuffel mee. Ophalen om 09:30 bij het scoutinggebouw.")
        w.line("END:VEVENT")
        // 8. A holiday week: one multi-day all-day event.
        begin(uid())
        allDay(holidayStart, until: holidayEnd)
        w.text("SUMMARY", holidayName(holidayStart))
        w.line("TRANSP:TRANSPARENT")
        w.line("END:VEVENT")
        // 9. Another study day after the holiday.
        begin(uid())
        allDay(holidayEnd + 2, until: holidayEnd + 3)
        w.text("SUMMARY", "Studiedag (leerlingen vrij)")
        w.line("TRANSP:TRANSPARENT")
        w.line("END:VEVENT")
        w.line("END:VCALENDAR")
        return w.text
    }

    // MARK: - Public holidays (Google)

    /// The Dutch public holidays and observances of `year`: (day number, name, public holiday).
    static func dutchHolidays(_ year: Int) -> [(days: Int, name: String, isPublic: Bool)] {
        let (em, ed) = ICSTime.easter(year)
        let easter = Civil.days(year: year, month: em, day: ed)
        var kingsDay = Civil.days(year: year, month: 4, day: 27)
        if ICSTime.weekday(kingsDay) == 0 { kingsDay -= 1 }
        func day(_ m: Int, _ d: Int) -> Int { Civil.days(year: year, month: m, day: d) }
        let list: [(Int, String, Bool)] = [
            (day(1, 1), "Nieuwjaarsdag", true),
            (easter - 2, "Goede Vrijdag", true),
            (easter, "Eerste Paasdag", true),
            (easter + 1, "Tweede Paasdag", true),
            (kingsDay, "Koningsdag", true),
            (day(5, 4), "Dodenherdenking", false),
            (day(5, 5), "Bevrijdingsdag", true),
            (easter + 39, "Hemelvaartsdag", true),
            (easter + 49, "Eerste Pinksterdag", true),
            (easter + 50, "Tweede Pinksterdag", true),
            (day(12, 5), "Sinterklaasavond", false),
            (day(12, 25), "Eerste Kerstdag", true),
            (day(12, 26), "Tweede Kerstdag", true),
            (day(12, 31), "Oudejaarsavond", false),
        ]
        return list.sorted { $0.0 < $1.0 }.map { (days: $0.0, name: $0.1, isPublic: $0.2) }
    }

    static func holidays(_ d0: Int, seedDay: String, changed: Int64) -> String {
        let year = Civil.date(fromDays: d0).year
        var rng = SeedRandom(seed: "ics|holidays|\(seedDay)")
        let stamp = ICSTime.utc(changed)
        var w = ICSWriter()
        w.lines([
            "BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0",
            "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
        ])
        w.text("X-WR-CALNAME", "Nederlandse feestdagen")
        w.line("X-WR-TIMEZONE:UTC")
        w.text("X-WR-CALDESC", "Feestdagen en bijzondere dagen in Nederland")
        for holiday in dutchHolidays(year) + dutchHolidays(year + 1) {
            let date = ICSTime.date(holiday.days)
            w.lines([
                "BEGIN:VEVENT", "DTSTART;VALUE=DATE:\(date)", "DTEND;VALUE=DATE:\(ICSTime.date(holiday.days + 1))",
                "DTSTAMP:\(stamp)", "UID:\(date)_\(rng.base36(26))@google.com", "CLASS:PUBLIC",
                "CREATED:\(ICSTime.utc(changed - 400 * 86_400))",
            ])
            w.text(
                "DESCRIPTION",
                holiday.isPublic
                    ? "Nationale feestdag"
                    : "Viering\nGa naar Google Agenda-instellingen > Feestdagen in Nederland om vieringen te verbergen"
            )
            w.lines(["LAST-MODIFIED:\(stamp)", "SEQUENCE:0", "STATUS:CONFIRMED"])
            w.text("SUMMARY", holiday.name)
            w.lines(["TRANSP:TRANSPARENT", "END:VEVENT"])
        }
        w.line("END:VCALENDAR")
        return w.text
    }

    // MARK: - Club (Outlook)

    static func club(_ d0: Int, seedDay: String, changed: Int64) -> String {
        var rng = SeedRandom(seed: "ics|club|\(seedDay)")
        func hex(_ count: Int) -> String {
            rng.bytes(count).map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
        }
        let stamp = ICSTime.utc(changed)
        let tz = "TZID=\(outlookZone)"
        let home = "Sportpark Middenhoven, veld 4, Amstelveen"
        let next = ICSTime.onOrAfter(d0, weekday: 6)
        // (Saturday, opponent, home game, kick-off, location when away)
        let matches: [(Int, String, Bool, (Int, Int), String)] = [
            (next - 7, "SV Ouderkerk JO11-1", true, (9, 0), home),
            (next, "AFC JO11-3", false, (10, 15), "Sportpark Goed Genoeg, Wielingenstraat 50, Amsterdam"),
            (next + 7, "RKSV Pancratius JO11-2", true, (9, 0), home),
            (next + 14, "Zeeburgia JO11-4", false, (11, 30), "Sportpark Middenmeer, Radioweg 64, Amsterdam"),
            (next + 21, "VV Bartoc JO11-1", true, (9, 0), home),
        ]
        var w = ICSWriter()
        w.lines([
            "BEGIN:VCALENDAR", "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN", "VERSION:2.0",
            "METHOD:PUBLISH", "X-MS-OLK-FORCEINSPECTOROPEN:TRUE",
        ])
        w.text("X-WR-CALNAME", "VV Amstelland JO11-2")
        w.line("X-WR-RELCALID:{0000002E-\(hex(2))\(hex(2))-\(hex(2))-\(hex(2))-\(hex(8))}")
        w.lines(outlookTimeZone)
        for (saturday, opponent, isHome, kickOff, location) in matches {
            let endMinutes = kickOff.0 * 60 + kickOff.1 + 90
            let meet = kickOff.0 * 60 + kickOff.1 - (isHome ? 30 : 60)
            let meetText = "\(Civil.pad(meet / 60, 2)):\(Civil.pad(meet % 60, 2))"
            w.lines(["BEGIN:VEVENT", "CLASS:PUBLIC", "CREATED:\(ICSTime.utc(changed - 30 * 86_400))"])
            w.text(
                "DESCRIPTION",
                isHome
                    ? "Thuiswedstrijd. Verzamelen om \(meetText) in het clubhuis, tenue: rood shirt, zwarte broek.\n"
                        + "Rijders en fluiten: zie de app."
                    : "Uitwedstrijd. Verzamelen om \(meetText) op de parkeerplaats van Middenhoven, carpoolen.\n"
                        + "Rijders: zie de app.")
            w.line("DTEND;\(tz):\(ICSTime.local(saturday, endMinutes / 60, endMinutes % 60))")
            w.line("DTSTAMP:\(stamp)")
            w.line("DTSTART;\(tz):\(ICSTime.local(saturday, kickOff.0, kickOff.1))")
            w.line("LAST-MODIFIED:\(stamp)")
            w.text("LOCATION", location)
            w.lines(["PRIORITY:5", "SEQUENCE:0"])
            let title = isHome ? "VV Amstelland JO11-2 – \(opponent)" : "\(opponent) – VV Amstelland JO11-2"
            w.line("SUMMARY;LANGUAGE=nl-NL:\(ICSWriter.escape(title))")
            w.line("TRANSP:OPAQUE")
            w.line("UID:040000008200E00074C5B7101A82E00800000000\(hex(8))000000000000000010000000\(hex(16))")
            w.lines([
                "X-MICROSOFT-CDO-BUSYSTATUS:BUSY", "X-MICROSOFT-CDO-IMPORTANCE:1",
                "X-MICROSOFT-DISALLOW-COUNTER:FALSE", "X-MS-OLK-AUTOFILLLOCATION:FALSE", "X-MS-OLK-CONFTYPE:0",
                "BEGIN:VALARM", "TRIGGER:-PT60M", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "END:VALARM",
                "END:VEVENT",
            ])
        }
        w.line("END:VCALENDAR")
        return w.text
    }

    // MARK: - Work (Google secret address)

    static func work(_ d0: Int, seedDay: String, timeZone: TimeZone, changed: Int64) -> String {
        let local = SeedCalendar(seedDays: d0, timeZone: timeZone)
        var rng = SeedRandom(seed: "ics|work|\(seedDay)")
        let stamp = ICSTime.utc(changed)
        // (day offset, start, end, summary, location, description)
        let events: [(Int, (Int, Int), (Int, Int), String, String?, String?)] = [
            (-1, (16, 0), (16, 45), "Sprint retro", nil, nil),
            (
                0, (10, 0), (10, 30), "Roadmap review", "Google Meet",
                "Deelnemen met Google Meet: https://meet.google.com/xqz-hpvr-mko\nAgenda: Q1 prioriteiten, "
                    + "capaciteit, open punten uit de vorige review."
            ),
            (0, (13, 30), (14, 30), "1:1 met Sanne", "Kamer 3.12", nil),
            (1, (9, 30), (10, 0), "Klantgesprek Van Dijk Logistiek", "Van Dijk Logistiek, Havenweg 8, Zaandam", nil),
            (3, (15, 0), (16, 0), "Sprint demo", nil, "Iedereen welkom; taart van team Betalingen."),
        ]
        var w = ICSWriter()
        w.lines([
            "BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0",
            "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
        ])
        w.text("X-WR-CALNAME", "Werk")
        w.line("X-WR-TIMEZONE:\(timeZone.identifier)")
        func event(_ start: Int64, _ end: Int64, _ summary: String, _ location: String?, _ description: String?) {
            w.lines([
                "BEGIN:VEVENT", "DTSTART:\(ICSTime.utc(start))", "DTEND:\(ICSTime.utc(end))", "DTSTAMP:\(stamp)",
                "UID:\(rng.base36(26))@google.com", "CREATED:\(ICSTime.utc(changed - 9 * 86_400))",
            ])
            w.text("DESCRIPTION", description ?? "")
            w.line("LAST-MODIFIED:\(stamp)")
            w.text("LOCATION", location ?? "")
            w.lines(["SEQUENCE:0", "STATUS:CONFIRMED"])
            w.text("SUMMARY", summary)
            w.line("TRANSP:OPAQUE")
        }
        for (day, start, end, summary, location, description) in events {
            event(
                local.utcSeconds(day, start.0, start.1), local.utcSeconds(day, end.0, end.1), summary, location,
                description)
            w.line("END:VEVENT")
        }
        // The monthly closing on the last Friday, from the last Friday of the previous month on.
        let (y, m, _) = Civil.date(fromDays: d0)
        let (py, pm) = m == 1 ? (y - 1, 12) : (y, m - 1)
        let lastFriday = ICSTime.onOrBefore(
            Civil.days(year: py, month: pm, day: Civil.daysIn(month: pm, year: py)), weekday: 5)
        let offset = lastFriday - d0
        event(
            local.utcSeconds(offset, 16, 0), local.utcSeconds(offset, 17, 0), "Maandafsluiting & borrel", "Kantine",
            nil)
        w.line("RRULE:FREQ=MONTHLY;BYDAY=-1FR")
        w.line("END:VEVENT")
        w.line("END:VCALENDAR")
        return w.text
    }
}
