import AsyncHTTPClient
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

@testable import Backends

/// Enrollments Kantine Koning refused, and the window of the list: a season that ended is
/// forgotten when the club's token changes and probed once a day; a refused token is not
/// called again until it changes, and `/v1/sources` says why; the list keeps only the asked
/// local days whatever the server sends. The simulator runs on a fixed clock.
@Suite("Kantine Koning enrollments")
struct KantineKoningEnrollmentTests {
    typealias KK = KantineKoningSimulator
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let seedDay = LocalDate(year: 2026, month: 11, day: 23)
    /// 14:00 on the seed day.
    static let now = seedDay.start(in: zone).addingTimeInterval(14 * 3600)
    static let list = "GET /api/mobile/v1/diensten"

    static func enrollment(_ e: KK.Enrollment, token: String? = nil) -> KantineKoningSettings.Enrollment {
        .init(tenant: e.tenant, role: e.role.rawValue, token: Secret(token ?? e.token), label: e.label)
    }

    static func withSimulator(
        _ enrollments: [KantineKoningSettings.Enrollment],
        _ body: (RunningSimulator, OperationContext) async throws -> Void
    ) async throws {
        let sim = try await KK(options: .init(seedDay: seedDay.description, timeZone: zone, now: now)).start()
        let profile = ProfileConfig([
            KantineKoningSettings(endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), enrollments: enrollments)
        ])
        try await SimulatorBackedTest.run(sim, profile: profile, zone: zone) { sim, context in
            var context = context
            context.clock = RequestClock(now: now, timeZone: zone)
            try await body(sim, context)
        }
    }

    static func fetch(
        _ context: OperationContext, _ arguments: [String: ArgumentValue] = [:]
    ) async throws -> (diensten: [Dienst], issues: [SectionIssue]) {
        let operation = KantineKoningDienstenOperation()
        let normalised = try operation.normalise(arguments, clock: context.clock)
        let output = try await operation.fetch(normalised, context: context)
        return (try JSONDecoder().decode([Dienst].self, from: output.body), output.issues)
    }

    static func with(_ settings: KantineKoningSettings, in context: OperationContext) -> OperationContext {
        var context = context
        context.profile = ProfileConfig([settings])
        return context
    }

    static func sources(_ context: OperationContext) async -> [JSONValue] {
        let input = SourcesInput(profileName: context.profileName, profile: context.profile, vault: context.vault) {
            _ in
            SourceHealth(
                UpstreamMonitor.Status(source: UpstreamSource(profile: "default", backend: "kantinekoning")), zone: .gmt
            )
        }
        return await KantineKoningSourcesPart().details(input)["enrollments"]?.arrayValue ?? []
    }

    @Test func aRefusedTokenIsNotCalledAgainUntilItChanges() async throws {
        let good = Self.enrollment(KK.demoEnrollments[0])
        let revoked = Self.enrollment(KK.revokedEnrollment)
        try await Self.withSimulator([good, revoked]) { sim, context in
            let first = try await Self.fetch(context)
            #expect(sim.control.calls(Self.list) == 2)
            #expect(first.issues.map(\.code) == ["token_revoked"])
            #expect(!first.diensten.isEmpty, "the other enrollment answered")

            for _ in 0..<3 {
                let again = try await Self.fetch(context)
                #expect(again.issues.first?.code == "enrollment_invalid")
                #expect(again.issues.first?.scope == revoked.label)
                #expect(again.issues.first?.message.contains("revoked") == true)
            }
            #expect(sim.control.calls(Self.list) == 2 + 3, "only the good enrollment is called")

            let shown = await Self.sources(context)
            #expect(shown.count == 2)
            #expect(shown[0]["invalid"] == .null)
            #expect(shown[1]["invalid"]?["code"] == .string("token_revoked"))
            #expect(shown[1]["invalid"]?["reason"]?.stringValue?.contains("admin_revoked") == true)
            #expect(!String(decoding: try JSONEncoder().encode(shown[1]), as: UTF8.self).contains(KK.revokedToken))

            // A new token for the enrollment: called again.
            var settings = try #require(context.profile.kantinekoning)
            settings.enrollments[1] = Self.enrollment(KK.revokedEnrollment, token: KK.demoMemberToken)
            let renewed = Self.with(settings, in: context)
            sim.control.resetStats()
            let after = try await Self.fetch(renewed)
            #expect(sim.control.calls(Self.list) == 2)
            #expect(after.issues.isEmpty)
            #expect(await Self.sources(renewed)[1]["invalid"] == .null)
        }
    }

    /// A 401 that is not one of the refusals the club app ends an enrollment for (here the
    /// server's generic `{"errors":{"detail":"Unauthorized"}}`) is an ordinary failure of that
    /// call: nothing is marked, and the next refresh asks again and serves.
    @Test func anOrdinary401EndsNoEnrollment() async throws {
        let good = Self.enrollment(KK.demoEnrollments[0])
        try await Self.withSimulator([good]) { sim, context in
            sim.control.setFaults(SimulatorFaults(errorStatus: 401))
            let error = await #expect(throws: BackendError.self) { _ = try await Self.fetch(context) }
            #expect(error?.status == 401)
            #expect(error?.message.contains("tried again on the next refresh") == true, "\(String(describing: error))")
            #expect(await Self.sources(context)[0]["invalid"] == .null)
            sim.control.clearFaults()
            sim.control.resetStats()
            let again = try await Self.fetch(context)
            #expect(sim.control.calls(Self.list) == 1, "asked again")
            #expect(again.issues.isEmpty && !again.diensten.isEmpty)
        }
    }

    /// Two clubs' diensten that share an id are two diensten: each club is a database schema of
    /// its own, and no source says ids cannot meet.
    @Test func dienstenAreKeyedByClubAndID() {
        func row(_ tenant: String) -> JSONValue {
            .object([
                "id": .string("d-1"), "tenant_id": .string(tenant), "start_tijd": .string("2026-11-28T09:00:00Z"),
                "eind_tijd": .string("2026-11-28T11:00:00Z"), "minimum_bemanning": .int(2),
                "status": .string("ingepland"),
            ])
        }
        let first = KantineKoningSettings.Enrollment(tenant: "a", role: "member", token: Secret("t1"), label: "a")
        let second = KantineKoningSettings.Enrollment(tenant: "b", role: "member", token: Secret("t2"), label: "b")
        let merged = KantineKoningDienstenOperation.merge(
            [(first, [row("a")]), (second, [row("b")]), (first, [row("a")])], zone: Self.zone, now: Self.now)
        #expect(merged.count == 2)
        #expect(Set(merged.map(\.tenant)) == ["a", "b"])
    }

    /// A day's diensten are made from the rows of that day's ids only (the server answers a year
    /// back), and keep what the whole merge keeps: an id whose newer row moved out of the day is
    /// not kept, one that moved in is, the strongest role of two enrollments stays.
    @Test func aDaysDienstenAreMadeFromThatDaysIDsAlone() {
        func row(_ id: String, _ start: String, updated: String? = nil) -> JSONValue {
            var fields: [String: JSONValue] = [
                "id": .string(id), "start_tijd": .string(start), "eind_tijd": .string("2026-12-30T23:00:00Z"),
            ]
            if let updated { fields["updated_at"] = .string(updated) }
            return .object(JSONObject(fields))
        }
        let member = KantineKoningSettings.Enrollment(tenant: "a", role: "member", token: Secret("t1"), label: "a")
        let manager = KantineKoningSettings.Enrollment(tenant: "a", role: "manager", token: Secret("t2"), label: "m")
        var year = (1...300).map { row("old-\($0)", "2026-0\(1 + $0 % 9)-1\($0 % 10)T10:00:00Z") }
        year += [
            row("today", "2026-11-28T09:00:00Z"),
            row("moved-out", "2026-11-28T12:00:00Z", updated: "2026-11-01T00:00:00Z"),
            row("moved-in", "2026-11-20T12:00:00Z", updated: "2026-11-01T00:00:00Z"),
            // Amsterdam's day starts at 23:00 UTC the day before.
            row("at-midnight", "2026-11-27T23:00:00Z"), row("before-midnight", "2026-11-27T22:59:59Z"),
        ]
        let newer = [
            row("moved-out", "2026-11-29T12:00:00Z", updated: "2026-11-02T00:00:00Z"),
            row("moved-in", "2026-11-28T18:00:00Z", updated: "2026-11-02T00:00:00Z"),
            row("today", "2026-11-28T09:00:00Z"),
        ]
        let seen = [(member, year), (manager, newer)]
        let day = LocalDate(year: 2026, month: 11, day: 28)
        let zone = Self.zone
        let kept = KantineKoningDienstenOperation.kept(seen, window: (day, day), zone: zone, now: Self.now)
        #expect(kept.map(\.id) == ["at-midnight", "today", "moved-in"])
        #expect(kept.first { $0.id == "today" }?.role == "manager")

        let interval = DateInterval(start: day.start(in: zone), end: day.adding(days: 1).start(in: zone))
        let rows = KantineKoningDienstenOperation.rows(of: seen, near: interval)
        #expect(rows.map(\.1.count) == [5, 3], "only the rows of ids with a row near the day")
        // The same as merging everything, then keeping the day.
        let everything = KantineKoningDienstenOperation.merge(seen, zone: zone, now: Self.now).filter {
            LenientDate.parse($0.start).map(interval.contains) == true && LenientDate.parse($0.start) != interval.end
        }
        #expect(kept == everything)
    }

    /// The sources name no cancelled value (the app shows `status` as text): the Dutch and English
    /// words are read as cancelled, anything else as planned.
    @Test func cancelledIsReadInEitherLanguage() {
        for word in ["geannuleerd", "Afgelast", "cancelled", "CANCELED", " geannuleerd "] {
            #expect(KantineKoningDienstStatus.isCancelled(word), "\(word)")
        }
        for word in ["ingepland", "", "open", nil] as [String?] {
            #expect(!KantineKoningDienstStatus.isCancelled(word), "\(String(describing: word))")
        }
    }

    /// A 200 without a diensten list is no "nothing planned": the app reports an error for it.
    @Test func anAnswerWithoutDienstenIsNoList() {
        #expect(KantineKoningClient.dienstRows(.object([:])) == nil)
        #expect(KantineKoningClient.dienstRows(.object(["error": .string("x")])) == nil)
        #expect(KantineKoningClient.dienstRows(.object(["diensten": .array([])])) == [])
    }

    @Test func anEndedSeasonIsForgottenWhenTheClubsTokenChanges() async throws {
        let good = Self.enrollment(KK.demoEnrollments[0])
        let ended = Self.enrollment(KK.seasonEndedEnrollment)
        try await Self.withSimulator([good, ended]) { sim, context in
            let first = try await Self.fetch(context)
            #expect(first.issues.map(\.code) == ["season_ended"])
            #expect(sim.control.calls(Self.list) == 2)
            _ = try await Self.fetch(context)
            #expect(sim.control.calls(Self.list) == 3, "the ended season is not called again the same day")
            #expect(await Self.sources(context)[1]["season_ended"] == .bool(true))

            // The next season: the same club, a new token (here one the simulator knows at
            // another club, which answers instead of refusing).
            var settings = try #require(context.profile.kantinekoning)
            settings.enrollments[1] = Self.enrollment(KK.seasonEndedEnrollment, token: KK.demoClubBMemberToken)
            let next = Self.with(settings, in: context)
            #expect(await Self.sources(next)[1]["season_ended"] == .bool(false))
            sim.control.resetStats()
            let reopened = try await Self.fetch(next)
            #expect(sim.control.calls(Self.list) == 2)
            #expect(reopened.issues.isEmpty)
            #expect(await KantineKoningSeasons(vault: next.vault, profile: "default").mark(tenant: ended.tenant) == nil)
        }
    }

    /// A season end is final for the tokens it was answered to, as in the club app (the token is
    /// cleared, and the server's reset deletes the season's teams and diensten): the club is not
    /// asked again with them, a day later or a month later — only a new enrollment at the club
    /// is. Even a club that reopened for the same tokens is not read through them.
    @Test func anEndedSeasonIsFinalForItsTokens() async throws {
        let ended = Self.enrollment(KK.seasonEndedEnrollment)
        let good = Self.enrollment(KK.demoEnrollments[0])
        try await Self.withSimulator([good, ended]) { sim, context in
            _ = try await Self.fetch(context)
            #expect(sim.control.calls(Self.list) == 2)
            for hours: Double in [23, 25, 24 * 30] {
                var later = context
                later.clock = RequestClock(now: Self.now.addingTimeInterval(hours * 3600), timeZone: Self.zone)
                let again = try await Self.fetch(later)
                #expect(again.issues.map(\.code) == ["season_ended"], "\(hours) h")
                #expect(again.issues.first?.message.contains("new enrollment") == true)
            }
            #expect(sim.control.calls(Self.list) == 2 + 3, "only the open club is asked")

            // A club whose mark is for the tokens configured now stays skipped, whatever it
            // would answer.
            let seasons = KantineKoningSeasons(vault: KantineKoningClient.marks(context), profile: "default")
            let settings = try #require(context.profile.kantinekoning)
            await seasons.markOver(
                tenant: good.tenant, settings: settings, at: Self.now.addingTimeInterval(-86_400 * 2))
            sim.control.resetStats()
            let skipped = try await Self.fetch(context)
            #expect(sim.control.calls(Self.list) == 0)
            #expect(skipped.diensten.isEmpty)
            #expect(await seasons.mark(tenant: good.tenant) != nil)
        }
    }

    @Test func seasonMarks() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let mark = KantineKoningSeasonMark(markedAt: now, tokens: "abc")
        #expect(KantineKoningSeasonMark(record: mark.record) == mark)
        #expect(mark.decide(tokens: "abc") == .skip)
        #expect(mark.decide(tokens: "abd") == .clear)
        // An older gateway's mark ("1") kept no tokens: adopted for the tokens of now, still skipped.
        #expect(KantineKoningSeasonMark(record: "1").decide(tokens: "abc") == .adopt)
    }

    /// The list asks no `past_days` (the server looks back 365 days by default) and keeps the
    /// asked local days: a dienst that started earlier today is today's (a server window from
    /// "now" would drop it), and nothing before the first asked day is kept.
    @Test func theListKeepsTheAskedLocalDays() async throws {
        let manager = Self.enrollment(KK.demoEnrollments[0])
        try await Self.withSimulator([manager]) { sim, context in
            let wide = try await Self.fetch(context, ["past_days": .int(14), "future_days": .int(21)])
            // A past dienst that starts before 22:00 local: "now" becomes an hour after its start.
            let dienst = try #require(
                wide.diensten.first {
                    guard let start = LenientDate.parse($0.start) else { return false }
                    let day = LocalDate(containing: start, in: Self.zone)
                    return start < Self.now && start.addingTimeInterval(3600) < day.adding(days: 1).start(in: Self.zone)
                })
            let start = try #require(LenientDate.parse(dienst.start))
            let now = start.addingTimeInterval(3600)
            let day = LocalDate(containing: start, in: Self.zone)
            let clock = LenientDate.format(now, in: .gmt)
            _ = try await SimulatorBackedTest.call(sim, .POST, "/_sim/clock", json: #"{"now":"\#(clock)"}"#)
            var then = context
            then.clock = RequestClock(now: now, timeZone: Self.zone)

            let narrow = try await Self.fetch(then, ["past_days": .int(0), "future_days": .int(2)])
            #expect(narrow.diensten.contains { $0.id == dienst.id }, "today's earlier dienst is today's")
            let window = DateInterval(start: day.start(in: Self.zone), end: day.adding(days: 3).start(in: Self.zone))
            for dienst in narrow.diensten {
                let start = try #require(LenientDate.parse(dienst.start))
                #expect(window.contains(start) && start != window.end, "\(dienst.start)")
            }
            let pastOnly = try await Self.fetch(then, ["past_days": .int(3), "future_days": .int(0)])
            let from = day.adding(days: -3).start(in: Self.zone)
            let until = day.adding(days: 1).start(in: Self.zone)
            #expect(
                pastOnly.diensten.allSatisfy {
                    let start = LenientDate.parse($0.start) ?? .distantPast
                    return start >= from && start < until
                })
            #expect(pastOnly.diensten.count < wide.diensten.count)
        }
    }
}
