import Foundation
import Model
import Testing

@Suite("Dates")
struct DateTests {
    let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!

    @Test(arguments: [
        ("2026-11-23T09:00:00Z", 1_795_424_400.0),
        ("2026-11-23T09:00:00", 1_795_424_400.0),
        ("2026-11-23T10:00:00+01:00", 1_795_424_400.0),
        ("2026-11-23T10:00:00+0100", 1_795_424_400.0),
        ("2026-11-23T04:00:00-05:00", 1_795_424_400.0),
        ("2026-11-23 09:00:00", 1_795_424_400.0),
        ("2026-11-23T09:00Z", 1_795_424_400.0),
        ("2026-11-23T09:00:00.5Z", 1_795_424_400.5),
        ("2026-11-23T09:00:00.084911Z", 1_795_424_400.084911),
        ("2026-11-23T09:00:00.084911", 1_795_424_400.084911),
        ("2026-11-23T09:00:00.123456789Z", 1_795_424_400.123456789),
    ])
    func lenientParsing(text: String, expected: Double) throws {
        let date = try #require(LenientDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - expected) < 0.000_002)
    }

    @Test(arguments: [
        "", "2026-11-23", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-23T25:00:00Z",
        "2026-11-23T09:00:00+", "2026-11-23T09:00:00Zjunk", "yesterday", "2026-11-23T09:00:00.",
    ])
    func rejectsMalformed(text: String) {
        #expect(LenientDate.parse(text) == nil)
    }

    /// Times with an offset are read by arithmetic; `Calendar` (still used for naive times) is
    /// the reference, rollover of second 60 and refused days included.
    @Test(arguments: [
        "2026-11-23T09:59:60Z", "2026-11-23T23:59:60Z", "2026-11-23T23:59:60+01:00", "2024-02-29T12:00:00+05:45",
        "2026-02-29T12:00:00Z", "2026-04-31T00:00:00-03:30", "1900-03-01T00:00:00.000001-12:00",
        "2026-03-29T02:30:00+01:00", "2026-12-31T23:00:00-18:00", "2026-12-31T23:00:00+19:00", "0001-01-01T00:00:00Z",
    ])
    func offsetTimesAgreeWithCalendar(text: String) throws {
        let bytes = Array(text.utf8)
        func int(_ from: Int, _ count: Int) -> Int { Int(String(decoding: bytes[from..<from + count], as: UTF8.self))! }
        let suffix = text.dropFirst(19).drop { $0 == "." || $0.isNumber }
        let offset: Int? =
            suffix == "Z"
            ? 0
            : (suffix.first == "-" ? -1 : 1)
                * (Int(suffix.dropFirst().prefix(2))! * 3600
                    + Int(suffix.dropFirst(4).prefix(2))! * 60)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? .gmt
        let components = DateComponents(
            year: int(0, 4), month: int(5, 2), day: int(8, 2), hour: int(11, 2), minute: int(14, 2), second: int(17, 2))
        let reference = calendar.date(from: components).flatMap {
            calendar.component(.day, from: $0) == int(8, 2) ? $0 : nil
        }
        let parsed = LenientDate.parse(text)
        #expect((parsed == nil) == (reference == nil), "\(text): \(String(describing: parsed))")
        if let parsed, let reference {
            #expect(abs(parsed.timeIntervalSince(reference)) < 0.000_01, "\(text)")
        }
    }

    /// The start of a local day agrees with `Calendar.startOfDay` on every day of seven years in
    /// zones with DST changes at 02:00, at midnight (Santiago, Havana, Beirut, Cairo), by half an
    /// hour (Lord Howe), across the date line (Apia skipped 2011-12-30) and without DST.
    @Test(arguments: [
        "Europe/Amsterdam", "America/New_York", "America/Santiago", "America/Havana", "Asia/Beirut", "Africa/Cairo",
        "Australia/Lord_Howe", "Pacific/Apia", "Pacific/Auckland", "Asia/Kolkata", "UTC",
    ])
    func startOfDayAgreesWithCalendar(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var day = LocalDate(year: 2010, month: 1, day: 1)
        var checked = 0
        while day < LocalDate(year: 2027, month: 1, day: 1) {
            guard
                let noon = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))
            else {
                day = day.adding(days: 1)
                continue
            }
            let expected = calendar.startOfDay(for: noon)
            if day.start(in: zone) != expected {
                Issue.record("\(zoneName) \(day): \(day.start(in: zone)) instead of \(expected)")
                return
            }
            checked += 1
            day = day.adding(days: 1)
        }
        #expect(checked > 6000)
    }

    @Test func naiveTimesCanBeTakenInAnotherZone() throws {
        let date = try #require(LenientDate.parse("2026-11-23T10:00:00", naiveZone: amsterdam))
        #expect(date.timeIntervalSince1970 == 1_795_424_400)
    }

    @Test func formatsWithTheZoneOffset() throws {
        let date = Date(timeIntervalSince1970: 1_795_424_400)
        #expect(LenientDate.format(date, in: amsterdam) == "2026-11-23T10:00:00+01:00")
        #expect(LenientDate.format(date, in: .gmt) == "2026-11-23T09:00:00Z")
        #expect(LenientDate.format(date.addingTimeInterval(0.25), in: .gmt) == "2026-11-23T09:00:00.250000Z")
        let summer = try #require(LenientDate.parse("2026-07-01T12:00:00Z"))
        #expect(LenientDate.format(summer, in: amsterdam) == "2026-07-01T14:00:00+02:00")
        let newYork = TimeZone(identifier: "America/New_York")!
        #expect(LenientDate.format(date, in: newYork) == "2026-11-23T04:00:00-05:00")
    }

    /// The formatter agrees with `Calendar`'s reading of the same instant in zones with odd
    /// offsets, on both sides of both DST changes, before 1970 and with fractions.
    @Test(arguments: ["Europe/Amsterdam", "America/New_York", "America/St_Johns", "Asia/Kathmandu", "Pacific/Auckland"])
    func formatAgreesWithCalendar(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let instants: [Double] = [
            -86_400 * 400 - 0.5, 0, 1_774_746_000 - 1, 1_774_746_000, 1_792_890_000 - 1, 1_792_890_000,
            1_795_424_400.084911, 1_798_761_599.999_999, 4_102_444_800,
        ]
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let whole = seconds.rounded(.down)
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
            func two(_ value: Int?) -> String { Civil.pad(value ?? 0, 2) }
            var expected =
                "\(Civil.pad(parts.year ?? 0, 4))-\(two(parts.month))-\(two(parts.day))"
                + "T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
            let micros = Int(((seconds - whole) * 1_000_000).rounded())
            if micros > 0, micros < 1_000_000 { expected += "." + Civil.pad(micros, 6) }
            let offset = zone.secondsFromGMT(for: date)
            expected +=
                offset == 0
                ? "Z" : (offset < 0 ? "-" : "+") + two(abs(offset) / 3600) + ":" + two(abs(offset) % 3600 / 60)
            #expect(LenientDate.format(date, in: zone) == expected, "\(zoneName) \(seconds)")
        }
    }

    @Test func localDateParsingIsStrict() {
        #expect(LocalDate("2026-11-22") == LocalDate(year: 2026, month: 11, day: 22))
        #expect(LocalDate("2024-02-29") != nil)
        for bad in [
            "2026-02-29", "2026-11-31", "26-11-22", "2026/11/22", "2026-11-22T00:00", "2026-1-22", "", "abcd-ef-gh",
            "2026-00-10",
        ] {
            #expect(LocalDate(bad) == nil, "\(bad) should be refused")
        }
    }

    @Test func backendDateFieldsTakeTheirLeadingDay() {
        #expect(LocalDate(leadingDayOf: "2026-11-22T00:00:00.000Z")?.description == "2026-11-22")
        #expect(LocalDate(leadingDayOf: "2026-11-22")?.description == "2026-11-22")
        #expect(LocalDate(leadingDayOf: "2026-11-2") == nil)
        #expect(LocalDate(leadingDayOf: "not a date at all") == nil)
    }

    @Test func dayArithmetic() {
        let day = LocalDate(year: 2026, month: 12, day: 31)
        #expect(day.adding(days: 1).description == "2027-01-01")
        #expect(day.adding(days: -365).description == "2025-12-31")
        #expect(LocalDate(year: 2026, month: 1, day: 1).days(to: day) == 364)
    }

    @Test func dstChangeDaysInAmsterdam() {
        // Clocks go back on 2026-10-25 (25 hours) and forward on 2026-03-29 (23 hours).
        let autumn = LocalDate(year: 2026, month: 10, day: 25).interval(in: amsterdam)
        #expect(autumn.duration == 25 * 3600)
        #expect(LenientDate.format(autumn.start, in: .gmt) == "2026-10-24T22:00:00Z")
        #expect(LenientDate.format(autumn.end, in: .gmt) == "2026-10-25T23:00:00Z")
        let spring = LocalDate(year: 2026, month: 3, day: 29).interval(in: amsterdam)
        #expect(spring.duration == 23 * 3600)
        #expect(LenientDate.format(spring.start, in: .gmt) == "2026-03-28T23:00:00Z")
        #expect(LenientDate.format(spring.end, in: .gmt) == "2026-03-29T22:00:00Z")
    }

    @Test func todayDependsOnTheZoneAroundMidnight() throws {
        // 23:30 UTC on 22 November is already 23 November in Amsterdam, still the 22nd in New York.
        let instant = try #require(LenientDate.parse("2026-11-22T23:30:00Z"))
        #expect(LocalDate.today(in: amsterdam, now: instant).description == "2026-11-23")
        #expect(
            LocalDate.today(in: TimeZone(identifier: "America/New_York")!, now: instant).description == "2026-11-22")
        #expect(LocalDate.today(in: .gmt, now: instant).description == "2026-11-22")
    }

    @Test func durationsAndSizesParse() {
        #expect(ConfigDuration(parsing: "500ms")?.seconds == 0.5)
        #expect(ConfigDuration(parsing: "5m")?.seconds == 300)
        #expect(ConfigDuration(parsing: "2h")?.seconds == 7200)
        #expect(ConfigDuration(parsing: "90")?.seconds == 90)
        #expect(ConfigDuration(parsing: "-1s") == nil)
        #expect(ConfigDuration(parsing: "soon") == nil)
        #expect(ListenAddress(parsing: "0.0.0.0:80")?.isLoopback == false)
        #expect(ListenAddress(parsing: "localhost:8787")?.isLoopback == true)
        #expect(ListenAddress(parsing: "127.0.0.1:99999") == nil)
        #expect(ListenAddress(parsing: "[::1]:8787")?.description == "[::1]:8787")
    }

    @Test func credentialFingerprintsHideTheSecret() {
        let fingerprint = CredentialFingerprint.of(["anna@example.org", "hunter2"])
        #expect(fingerprint.count == 16)
        #expect(!fingerprint.contains("hunter2"))
        #expect(fingerprint != CredentialFingerprint.of(["anna@example.org", "hunter3"]))
        #expect(fingerprint == CredentialFingerprint.of(["anna@example.org", "hunter2"]))
        #expect(CredentialFingerprint.of([]) == CredentialFingerprint.none)
        #expect(CredentialFingerprint.of(["", ""]) == CredentialFingerprint.none)
    }

    /// The fingerprints are those a kept cache entry or vault record was made with (computed
    /// independently, with Python's hashlib: SHA-256 over `daygate-credential-v1`, then each
    /// non-empty part and a zero byte; the first 8 bytes in hex). A change here would orphan
    /// every stored one.
    @Test func credentialFingerprintsAreStable() {
        #expect(CredentialFingerprint.of(["anna@example.org", "hunter2"]) == "6f6a3513d6a6546f")
        #expect(CredentialFingerprint.of(["", "x", ""]) == "a611333b0ad36a16")
        #expect(CredentialFingerprint.of(["x"]) == "a611333b0ad36a16")
        #expect(
            CredentialFingerprint.of(["https://cal.example/feed.ics?token=zoë 日本", "", "Bearer t"])
                == "472a4f045f8b3ba5")
        #expect(CredentialFingerprint.of([String(repeating: "a", count: 200)]) == "fd9944a47dc51ef2")
    }
}
