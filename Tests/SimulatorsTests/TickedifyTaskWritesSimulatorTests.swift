import AsyncHTTPClient
import Foundation
import Model
import NIOHTTP1
import Testing

@testable import Simulators

/// `PUT /api/taak/:id` (the completion branch and `updateTask`), `POST /api/taak/:id/unarchive`,
/// `PUT /api/dagelijkse-planning/:id/reorder` and `DELETE /api/dagelijkse-planning/:id` as the
/// real server does them (seed day 2026-11-23, a Monday).
@Suite("Tickedify simulator: task writes")
struct TickedifyTaskWritesSimulatorTests {
    static let day = "/api/dagelijkse-planning/2026-11-23"

    /// The id of the task titled `title` in list `lijst`.
    static func taskID(
        _ client: HTTPClient, _ sim: RunningSimulator, _ cookie: String, _ lijst: String, _ title: String
    )
        async throws -> String
    {
        let list = try await client.tickedifyGet(sim, "/api/lijst/\(lijst)", cookie: cookie)
        return try #require(list.array.first { $0["tekst"] as? String == title }?["id"] as? String)
    }

    static func complete(_ client: HTTPClient, _ sim: RunningSimulator, _ cookie: String?, _ id: String) async throws
        -> SimResponse
    {
        try await client.send(
            .PUT, sim, "/api/taak/\(id)",
            json: #"{"afgewerkt":"2020-01-01T00:00:00.000Z","completedViaCheckbox":true,"lijst":"afgewerkt"}"#,
            headers: cookie.map { [("cookie", $0)] } ?? [])
    }

    @Test func completionArchivesTheTaskAndDeletesItsPlanningItems() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let offerte = try await Self.taskID(client, sim, cookie, "acties", "Offerte tegelzetter vergelijken")
            let before = Int64(Date().timeIntervalSince1970 * 1000) - 1

            let done = try await Self.complete(client, sim, cookie, offerte)
            #expect(done.status == 200)
            #expect(
                done.body
                    == #"{"success":true,"message":"Taak afgewerkt en gearchiveerd","archived_taak_id":"\#(offerte)"}"#)

            let acties = try await client.tickedifyGet(sim, "/api/lijst/acties", cookie: cookie)
            #expect(!tkStrings(acties.array, "id").contains(offerte))
            let plan = try await client.tickedifyGet(sim, Self.day, cookie: cookie)
            #expect(!plan.array.contains { $0["actieId"] as? String == offerte })
            #expect(tkStrings(plan.array.filter { $0["uur"] as? Int == 9 }, "naam") == ["Mama bellen"])
            // In the completed list, with the server's own time, not the one sent.
            let archive = try await client.tickedifyGet(sim, "/api/lijst/afgewerkte-taken", cookie: cookie)
            let row = try #require(archive.array.first { $0["id"] as? String == offerte })
            let at = try #require((row["afgewerkt"] as? String).flatMap { LenientDate.parse($0) })
            #expect(Int64(at.timeIntervalSince1970 * 1000) >= before)
            // The archive's own row: snake_case keys, its old list, archived_at (recorded: 039).
            #expect(row["herhaling_actief"] as? Bool == false)
            #expect(row["lijst"] as? String == "acties")
            #expect(row["archived_at"] as? String == row["afgewerkt"] as? String)

            // Once archived, the task is not found again.
            let again = try await Self.complete(client, sim, cookie, offerte)
            #expect(again.status == 404)
            #expect(again.body == #"{"success":false,"error":"Task not found","code":"TASK_NOT_FOUND"}"#)
            #expect(try await client.send(sim, "/_sim/crashes").body == #"{"count":0}"#)
        }
    }

    /// As the real server (recorded: `Tests/Fixtures/recordings/tickedify`, 048-057): the
    /// completion of a recurring task makes no next occurrence and says none; the web app's
    /// `POST /api/taak/recurring {originalTask, nextDate}` makes it, from the camelCase fields,
    /// with an id that is not `task_…`, and refuses without a session or a date with a 500.
    @Test func aRecurringTaskComesBackOnlyThroughTheWebAppsOwnCall() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let headers = [("cookie", cookie)]
            let acties = try await client.tickedifyGet(sim, "/api/lijst/acties", cookie: cookie)
            let list = try #require(JSONValue.parse(Array(acties.body.utf8)))
            let original = try #require(list.arrayValue?.first { $0["tekst"] == .string("Mama bellen") })
            let mamaID = try #require(original["id"]?.stringValue)

            let refusedWithoutSession = try await client.send(
                .POST, sim, "/api/taak/recurring",
                json: JSONValue.object(["originalTask": original, "nextDate": .string("2026-11-30")]).serialized)
            #expect(refusedWithoutSession.status == 500)
            #expect(refusedWithoutSession.body == #"{"error":"Fout bij aanmaken herhalende taak"}"#)
            let refusedDate = try await client.send(
                .POST, sim, "/api/taak/recurring",
                json: JSONValue.object(["originalTask": original, "nextDate": .string("volgende week")]).serialized,
                headers: headers)
            #expect(refusedDate.status == 500)
            #expect(
                refusedDate.body == #"{"error":"Fout bij aanmaken herhalende taak - createRecurringTask failed"}"#)

            let made = try await client.send(
                .POST, sim, "/api/taak/recurring",
                json: JSONValue.object(["originalTask": original, "nextDate": .string("2026-11-30")]).serialized,
                headers: headers)
            #expect(made.status == 200)
            let next = try #require(made.object["taskId"] as? String)
            #expect(!next.hasPrefix("task_") && next != mamaID)

            let done = try await Self.complete(client, sim, cookie, mamaID)
            #expect(done.status == 200)
            #expect(done.object["new_recurring_taak_id"] == nil, "the server's completion makes no next occurrence")
            let after = try await client.tickedifyGet(sim, "/api/lijst/acties", cookie: cookie)
            #expect(after.array.filter { $0["tekst"] as? String == "Mama bellen" }.count == 1)
            let row = try #require(after.array.first { $0["id"] as? String == next })
            #expect(row["verschijndatum"] as? String == "2026-11-30T00:00:00.000Z")
            #expect(row["herhalingActief"] as? Bool == true)
            #expect(row["herhalingType"] as? String == original["herhalingType"]?.stringValue)
        }
    }

    @Test func completionRefusals() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let headers = [("cookie", cookie)]
            let was = try await Self.taskID(client, sim, cookie, "acties", "Was ophangen")
            // The normal branch marks the live row in place; the checkbox then finds it completed.
            let marked = try await client.send(
                .PUT, sim, "/api/taak/\(was)", json: #"{"lijst":"afgewerkt","afgewerkt":"2026-11-23T08:00:00.000Z"}"#,
                headers: headers)
            #expect(marked.body == #"{"success":true}"#)
            let state = try await Self.complete(client, sim, cookie, was)
            #expect(state.status == 400)
            #expect(
                state.body
                    == #"{"success":false,"error":"Task is already completed","code":"INVALID_TASK_STATE","currentState":"afgewerkt"}"#
            )
            // Without a timestamp.
            let fiets = try await Self.taskID(client, sim, cookie, "inbox", "Fietsband plakken")
            let missing = try await client.send(
                .PUT, sim, "/api/taak/\(fiets)", json: #"{"completedViaCheckbox":true,"lijst":"afgewerkt"}"#,
                headers: headers)
            #expect(missing.status == 400)
            #expect(missing.object["code"] as? String == "VALIDATION_ERROR")
            // updateTask: a key that is not a column, or an unknown task, is a 404.
            for (id, body) in [(fiets, #"{"status":null}"#), ("task_0_onbekend00", #"{"tekst":"x"}"#)] {
                let r = try await client.send(.PUT, sim, "/api/taak/\(id)", json: body, headers: headers)
                #expect(r.status == 404)
                #expect(r.body == #"{"error":"Taak niet gevonden"}"#)
            }
            let unknown = try await Self.complete(client, sim, cookie, "task_0_onbekend00")
            #expect(unknown.status == 404)
            #expect(unknown.object["code"] as? String == "TASK_NOT_FOUND")
        }
    }

    @Test func withoutSessionTheTaskUpdateCrashesAndUnarchiveIs401() async throws {
        try await withTickedify { sim, client in
            let body = #"{"afgewerkt":"2026-11-23T08:00:00.000Z","completedViaCheckbox":true,"lijst":"afgewerkt"}"#
            let raw = await rawExchange(
                port: sim.port,
                request:
                    "PUT /api/taak/task_1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            #expect(raw == .closed)
            // Reorder's catch block does not ask for the user again: a 500, no crash (recorded: 107, 108).
            let reorder = try await client.send(
                .PUT, sim, "/api/dagelijkse-planning/abc/reorder", json: #"{"targetUur":9}"#,
                headers: [("cookie", "tickedify.sid=s%3Afoo.bar")])
            #expect(reorder.status == 500)
            #expect(reorder.body == #"{"error":"Fout bij herordenen dagelijkse planning"}"#)
            #expect(try await client.send(sim, "/_sim/crashes").body == #"{"count":1}"#)
            let unarchive = try await client.send(.POST, sim, "/api/taak/task_1/unarchive")
            #expect(unarchive.status == 401)
            #expect(unarchive.body == #"{"error":"Niet ingelogd"}"#)
        }
    }

    @Test func unarchiveBringsTheTaskBackIntoTheInboxWithoutItsPlan() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let headers = [("cookie", cookie)]
            let tandarts = try await Self.taskID(client, sim, cookie, "inbox", "Tandarts bellen voor controle")
            let mama = try await Self.taskID(client, sim, cookie, "acties", "Mama bellen")
            let tomorrow = "/api/dagelijkse-planning/2026-11-24"
            #expect(
                try await client.tickedifyGet(sim, tomorrow, cookie: cookie).array.contains {
                    $0["actieId"] as? String == tandarts
                })
            for id in [tandarts, mama] { #expect(try await Self.complete(client, sim, cookie, id).status == 200) }

            for id in [tandarts, mama] {
                let back = try await client.send(.POST, sim, "/api/taak/\(id)/unarchive", headers: headers)
                #expect(
                    back.body
                        == #"{"success":true,"message":"Taak teruggezet naar inbox","restored_task_id":"\#(id)","restored_subtaken_count":0}"#
                )
            }
            let inbox = try await client.tickedifyGet(sim, "/api/lijst/inbox", cookie: cookie)
            let restored = try #require(inbox.array.first { $0["id"] as? String == mama })
            #expect(restored["afgewerkt"] is NSNull)
            #expect(restored["lijst"] as? String == "inbox")
            #expect(restored["herhalingActief"] as? Bool == false)
            #expect(tkStrings(inbox.array, "id").contains(tandarts))
            let archive = try await client.tickedifyGet(sim, "/api/lijst/afgewerkte-taken", cookie: cookie)
            #expect(!tkStrings(archive.array, "id").contains(tandarts))
            // The planning items are gone for good.
            #expect(
                !(try await client.tickedifyGet(sim, tomorrow, cookie: cookie).array.contains {
                    $0["actieId"] as? String == tandarts
                }))
            let again = try await client.send(.POST, sim, "/api/taak/\(tandarts)/unarchive", headers: headers)
            #expect(again.status == 404)
            #expect(again.body == #"{"error":"Taak niet gevonden in archief"}"#)
            // A seeded completed task is in the archive too.
            let huur = try #require(
                archive.array.first { $0["tekst"] as? String == "Huur overmaken" }?["id"] as? String)
            #expect(try await client.send(.POST, sim, "/api/taak/\(huur)/unarchive", headers: headers).status == 200)
        }
    }

    @Test func reorderShiftsBothHoursAndDeleteLeavesTheGap() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            let headers = [("cookie", cookie)]
            func plan() async throws -> [[String: Any]] {
                try await client.tickedifyGet(sim, Self.day, cookie: cookie).array
            }
            func item(_ name: String) async throws -> String {
                try #require(try await plan().first { $0["naam"] as? String == name }?["id"] as? String)
            }
            func hour(_ uur: Int) async throws -> [String] {
                let items = try await plan().filter { $0["uur"] as? Int == uur }
                return zip(tkStrings(items, "naam"), tkInts(items, "positie")).map { "\($0)@\($1)" }
            }
            let aangifte = try await item("Belastingaangifte invullen")
            let offerte = try await item("Offerte tegelzetter vergelijken")

            let moved = try await client.send(
                .PUT, sim, "/api/dagelijkse-planning/\(aangifte)/reorder", json: #"{"targetUur":9,"targetPosition":0}"#,
                headers: headers)
            #expect(moved.body == #"{"success":true}"#)
            #expect(
                try await hour(9)
                    == ["Belastingaangifte invullen@0", "Offerte tegelzetter vergelijken@1", "Mama bellen@2"])
            #expect(try await hour(10) == [])

            // null appends at the end of the target hour; the old hour closes up.
            let appended = try await client.send(
                .PUT, sim, "/api/dagelijkse-planning/\(offerte)/reorder",
                json: #"{"targetUur":13,"targetPosition":null}"#,
                headers: headers)
            #expect(appended.status == 200)
            #expect(
                try await hour(13) == ["Uitnodigingen verjaardag versturen@0", "Offerte tegelzetter vergelijken@1"])
            #expect(try await hour(9) == ["Belastingaangifte invullen@0", "Mama bellen@1"])

            for (id, body) in [
                ("onbekend", #"{"targetUur":9,"targetPosition":null}"#), (offerte, #"{"targetUur":24}"#),
            ] {
                let r = try await client.send(
                    .PUT, sim, "/api/dagelijkse-planning/\(id)/reorder", json: body, headers: headers)
                #expect(r.status == 404)
                #expect(r.body == #"{"error":"Planning item niet gevonden"}"#)
            }

            // Deleting does not close the gap.
            let deleted = try await client.send(.DELETE, sim, "/api/dagelijkse-planning/\(aangifte)", headers: headers)
            #expect(deleted.body == #"{"success":true}"#)
            #expect(try await hour(9) == ["Mama bellen@1"])
            #expect(try await client.send(sim, "/_sim/crashes").body == #"{"count":0}"#)
        }
    }

    @Test func theNewRoutesTakePartInFaultInjection() async throws {
        try await withTickedify { sim, client in
            let cookie = try await client.tickedifyCookie(sim)
            _ = try await client.send(.POST, sim, "/_sim/faults", json: #"{"error_status":503}"#)
            let r = try await Self.complete(client, sim, cookie, "task_1")
            #expect(r.status == 503)
            let reopen = try await client.send(.POST, sim, "/api/taak/task_1/unarchive", headers: [("cookie", cookie)])
            #expect(reopen.status == 503)
            #expect(sim.control.calls("PUT /api/taak/task_1") == 1)
        }
    }
}
