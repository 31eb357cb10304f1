import Foundation
import Model

/// The demo household's Tickedify account relative to the seed day: projects, contexts, an inbox,
/// actions (one not yet visible), follow-ups, postponed and completed tasks, and day plans for
/// seedDay-2 … seedDay+2. Ids and timestamps derive from the seed day only, so a restart gives the
/// same data; every creation or completion time lies before seedDay's local midnight, so with the
/// default seed day (today) new tasks always sort first.
enum TickedifySeed {
    private struct TaskSpec {
        var key: String
        var tekst: String
        /// Creation: days relative to seedDay and a local time.
        var created: (day: Int, hour: Int, minute: Int)
        var lijst: String
        var verschijn: Int?
        var duur: Int?
        var project: String?
        var context: String?
        var prioriteit = "gemiddeld"
        var top: Int?
        var prioriteitDag: Int?
        var opmerkingen: String?
        var herhaling: String?
        var bijlagen = 0
        /// Completed at (days relative to seedDay, local time).
        var done: (day: Int, hour: Int, minute: Int)?
        /// Soft-deleted at.
        var deleted: (day: Int, hour: Int, minute: Int)?
    }

    private struct PlanSpec {
        var day: Int
        var uur: Int
        var type: String
        var task: String?
        var naam: String?
        var duur: Int
        var positie = 0
    }

    private static let projects: [(key: String, naam: String, created: Int, due: Int?, opmerkingen: String?)] = [
        ("badkamer", "Verbouwing badkamer", -40, 30, "Tegels gekozen, nog offertes vergelijken"),
        ("sam", "Verjaardag Sam (8)", -12, 9, nil),
        ("belasting", "Belastingaangifte", -20, nil, nil),
    ]

    private static let contexts: [(key: String, naam: String)] = [
        ("thuis", "Thuis"), ("computer", "Computer"), ("telefoon", "Telefoon"), ("boodschappen", "Boodschappen"),
    ]

    private static let tasks: [TaskSpec] = [
        // inbox
        TaskSpec(
            key: "tandarts", tekst: "Tandarts bellen voor controle", created: (-2, 8, 12), lijst: "inbox",
            prioriteit: "gemiddeld"),
        TaskSpec(
            key: "cadeau", tekst: "Cadeau voor Sam bedenken", created: (-1, 21, 40), lijst: "inbox", top: 3,
            prioriteitDag: 0,
            opmerkingen: "Lego of een fiets?", bijlagen: 1
        ),
        TaskSpec(key: "fietsband", tekst: "Fietsband plakken", created: (-1, 22, 5), lijst: "inbox"),
        // acties
        TaskSpec(
            key: "offerte", tekst: "Offerte tegelzetter vergelijken", created: (-6, 20, 15), lijst: "acties",
            verschijn: -3, duur: 30,
            project: "badkamer", context: "computer", prioriteit: "hoog", top: 1, prioriteitDag: 0, bijlagen: 2
        ),
        TaskSpec(
            key: "aangifte", tekst: "Belastingaangifte invullen", created: (-9, 19, 2), lijst: "acties", verschijn: -1,
            duur: 60,
            project: "belasting", context: "computer", prioriteit: "hoog", top: 2, prioriteitDag: 0
        ),
        TaskSpec(
            key: "mama", tekst: "Mama bellen", created: (-14, 18, 30), lijst: "acties", verschijn: 0, duur: 15,
            context: "telefoon",
            herhaling: "weekly-1-1"
        ),
        TaskSpec(
            key: "uitnodigingen", tekst: "Uitnodigingen verjaardag versturen", created: (-4, 22, 10), lijst: "acties",
            duur: 30,
            project: "sam", context: "computer"
        ),
        TaskSpec(
            key: "boodschappen", tekst: "Boodschappen doen", created: (-1, 18, 45), lijst: "acties", verschijn: 0,
            duur: 45,
            context: "boodschappen", opmerkingen: "Melk, brood, appels, taart voor zaterdag"
        ),
        TaskSpec(
            key: "was", tekst: "Was ophangen", created: (-1, 8, 20), lijst: "acties", duur: 20, context: "thuis",
            prioriteit: "laag"),
        TaskSpec(
            key: "apk", tekst: "APK auto inplannen", created: (-3, 12, 50), lijst: "acties", verschijn: 5, duur: 10,
            context: "telefoon"
        ),
        TaskSpec(
            key: "schuur", tekst: "Schuur opruimen", created: (-8, 10, 0), lijst: "acties", duur: 90, context: "thuis",
            prioriteit: "laag",
            deleted: (-2, 9, 30)
        ),
        // opvolgen
        TaskSpec(
            key: "vergunning", tekst: "Reactie gemeente parkeervergunning", created: (-10, 11, 15), lijst: "opvolgen",
            opmerkingen: "Aanvraag ingediend, zaaknummer 2026-0417"
        ),
        TaskSpec(key: "retour", tekst: "Terugbetaling webshop retour", created: (-5, 16, 5), lijst: "opvolgen"),
        // uitgesteld
        TaskSpec(
            key: "garage", tekst: "Garage uitmesten", created: (-30, 14, 0), lijst: "uitgesteld-wekelijks", duur: 120,
            context: "thuis"),
        TaskSpec(
            key: "fotoboek", tekst: "Fotoboek zomervakantie maken", created: (-60, 20, 30),
            lijst: "uitgesteld-maandelijks", duur: 180),
        // completed
        TaskSpec(
            key: "huur", tekst: "Huur overmaken", created: (-3, 9, 0), lijst: "acties", verschijn: -1, duur: 10,
            context: "computer",
            prioriteit: "hoog", done: (-1, 10, 20)
        ),
        TaskSpec(
            key: "vuilnis", tekst: "Vuilnis buiten zetten", created: (-7, 19, 0), lijst: "acties", verschijn: -1,
            duur: 5, context: "thuis",
            done: (-1, 19, 50)
        ),
        TaskSpec(
            key: "planten", tekst: "Planten water geven", created: (-2, 18, 0), lijst: "acties", verschijn: 0, duur: 5,
            context: "thuis",
            done: (0, 7, 5)
        ),
    ]

    private static let plan: [PlanSpec] = [
        // seedDay - 2
        PlanSpec(day: -2, uur: 9, type: "taak", task: "aangifte", duur: 60),
        PlanSpec(day: -2, uur: 12, type: "pauze", naam: "Lunch", duur: 30),
        // seedDay - 1
        PlanSpec(day: -1, uur: 10, type: "taak", task: "huur", duur: 10),
        PlanSpec(day: -1, uur: 12, type: "pauze", naam: "Lunch", duur: 45),
        PlanSpec(day: -1, uur: 14, type: "geblokkeerd", naam: "Tandarts Sam", duur: 60),
        PlanSpec(day: -1, uur: 19, type: "taak", task: "vuilnis", duur: 5),
        // seedDay
        PlanSpec(day: 0, uur: 9, type: "taak", task: "offerte", duur: 30),
        PlanSpec(day: 0, uur: 9, type: "taak", task: "mama", duur: 15, positie: 1),
        PlanSpec(day: 0, uur: 10, type: "taak", task: "aangifte", duur: 60),
        PlanSpec(day: 0, uur: 12, type: "pauze", naam: "Lunch", duur: 30),
        PlanSpec(day: 0, uur: 13, type: "taak", task: "uitnodigingen", duur: 30),
        PlanSpec(day: 0, uur: 15, type: "geblokkeerd", naam: "Focus blok", duur: 60),
        PlanSpec(day: 0, uur: 17, type: "taak", task: "boodschappen", duur: 45),
        // seedDay + 1
        PlanSpec(day: 1, uur: 9, type: "geblokkeerd", naam: "Overleg aannemer", duur: 60),
        PlanSpec(day: 1, uur: 10, type: "taak", task: "tandarts", duur: 15),
        PlanSpec(day: 1, uur: 12, type: "pauze", naam: "Lunch", duur: 30),
        PlanSpec(day: 1, uur: 16, type: "taak", task: "was", duur: 20),
        // seedDay + 2
        PlanSpec(day: 2, uur: 12, type: "pauze", naam: "Lunch", duur: 30),
        PlanSpec(day: 2, uur: 19, type: "taak", task: "aangifte", duur: 60),
    ]

    static func data(seedDay: String, timeZone: TimeZone, userId: String) -> TickedifyStore.Data {
        guard let calendar = SeedCalendar(seedDay: seedDay, timeZone: timeZone) else { return .init() }

        /// A local wall time relative to the seed day, as UTC milliseconds.
        func local(_ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0, _ millis: Int = 0) -> Int64 {
            calendar.utcSeconds(day, hour, minute, second) * 1000 + Int64(millis)
        }
        func day(_ offset: Int?) -> String? { offset.map { TickedifyTime.shift(seedDay, $0) } }

        var rng = SeedRandom(seed: "tickedify|\(seedDay)|\(userId)")
        var data = TickedifyStore.Data()

        var projectIDs: [String: String] = [:]
        for (index, p) in projects.enumerated() {
            let created = local(p.created, 20, 5 + index * 7, 12, Int(rng.next() % 1000))
            let id = "project_\(created)_\(rng.base36(9))"
            projectIDs[p.key] = id
            data.projects.append(
                TickedifyProject(
                    id: id, naam: p.naam, aangemaakt: created, userId: userId, dueDate: day(p.due),
                    opmerkingen: p.opmerkingen)
            )
        }
        var contextIDs: [String: String] = [:]
        for (index, c) in contexts.enumerated() {
            let created = local(-90, 21, 0, index * 3, Int(rng.next() % 1000))
            let id = "context_\(created)_\(rng.base36(9))"
            contextIDs[c.key] = id
            data.contexts.append(TickedifyContext(id: id, naam: c.naam, aangemaakt: created, userId: userId))
        }

        var taskIDs: [String: String] = [:]
        for spec in tasks {
            let created = local(
                spec.created.day, spec.created.hour, spec.created.minute, Int(rng.next() % 60), Int(rng.next() % 1000))
            let id = "task_\(created)_\(rng.base36(9))"
            taskIDs[spec.key] = id
            var task = TickedifyTask(
                id: id, tekst: spec.tekst, aangemaakt: created, lijst: spec.lijst, verschijndatum: day(spec.verschijn),
                duur: spec.duur,
                userId: userId
            )
            task.opmerkingen = spec.opmerkingen
            task.topPrioriteit = spec.top
            task.prioriteitDatum = day(spec.prioriteitDag)
            task.prioriteit = spec.prioriteit
            task.projectId = spec.project.flatMap { projectIDs[$0] }
            task.contextId = spec.context.flatMap { contextIDs[$0] }
            if let herhaling = spec.herhaling {
                task.herhalingType = herhaling
                task.herhalingActief = true
            }
            task.bijlagen = spec.bijlagen
            if let done = spec.done {
                // Completed through the app's checkbox: the row lives in taken_archief.
                task.afgewerkt = local(done.day, done.hour, done.minute, 31, 207)
                task.archivedAt = task.afgewerkt
                task.archived = true
            }
            if let deleted = spec.deleted {
                let at = local(deleted.day, deleted.hour, deleted.minute, 2, 640)
                task.verwijderdOp = at
                task.definitiefVerwijderenOp = at + 30 * 86_400_000
            }
            data.tasks.append(task)
        }

        for (index, spec) in plan.enumerated() {
            // Planned the evening before, or (for seedDay and later) the evening before seedDay: every
            // seeded timestamp lies before seedDay's local midnight.
            let created = local(min(spec.day, 0) - 1, 21, 30 + index % 25, Int(rng.next() % 60), Int(rng.next() % 1000))
            let id = rng.base36(9) + TickedifyTime.base36(UInt64(created))
            data.planning.append(
                TickedifyPlanItem(
                    id: id, actieId: spec.task.flatMap { taskIDs[$0] }, datum: TickedifyTime.shift(seedDay, spec.day),
                    uur: spec.uur,
                    positie: spec.positie, type: spec.type,
                    naam: spec.naam ?? spec.task.flatMap { key in tasks.first { $0.key == key }?.tekst },
                    duurMinuten: spec.duur, aangemaakt: created, userId: userId
                )
            )
        }
        return data
    }
}
