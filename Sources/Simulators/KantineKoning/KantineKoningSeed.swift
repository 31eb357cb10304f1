import Foundation
import Model

/// The seeded clubs: diensten over seedDay-14 … seedDay+21 at local times in the clubs' zone,
/// stored as UTC. Every id and value derives from the tenant slugs, team codes and seed day, so a
/// restart gives the same data.
///
/// Per club: Saturdays carry the youth-match shifts (bar, kitchen, afternoon bar, evening
/// kantine), Sundays a senior bar shift, and one or two training evenings a week a bar shift
/// (club A Wednesday, club B Tuesday and Thursday, further clubs alternate). Teams take turns;
/// some future shifts are still open (`team:null`). Past shifts are staffed, future ones partly.
/// Guarantees: the first club has a dienst on the seed day itself (its first team, 18:30-21:30
/// unless the pattern already has one that day) and the second club one in seedDay+1 … +3 (its
/// first team).
enum KantineKoningSeed {
    struct Result {
        var tenants: [KantineKoningTenantRecord]
        var diensten: [KantineKoningDienst]
    }

    private struct Slot {
        var start: (Int, Int)
        var end: (Int, Int)
        var type: String
        var icon: String
        var location: String
        var minimum: Int
    }

    private static let bar = ("Bar", "lucide-beer")
    private static let keuken = ("Keuken", "lucide-chef-hat")
    private static let kantine = ("Kantine", "lucide-utensils")

    private static func slot(
        _ start: (Int, Int), _ end: (Int, Int), _ kind: (String, String), _ location: String, _ minimum: Int
    ) -> Slot {
        Slot(start: start, end: end, type: kind.0, icon: kind.1, location: location, minimum: minimum)
    }

    /// Weekday 0 = Sunday … 6 = Saturday.
    private static func slots(weekday: Int, tenantIndex: Int) -> [Slot] {
        let trainingDays: Set<Int> = tenantIndex % 2 == 0 ? [3] : [2, 4]
        switch weekday {
        case 6:
            return [
                slot((8, 30), (11, 0), bar, "Kantine", 2),
                slot((9, 0), (12, 30), keuken, "Keuken", 2),
                slot((11, 0), (13, 30), bar, "Kantine", 2),
                slot((13, 30), (16, 0), bar, "Kantine", 2),
                slot((16, 0), (18, 30), kantine, "Bestuurskamer", 1),
            ]
        case 0:
            return [slot((10, 0), (13, 0), bar, "Kantine", 2), slot((12, 0), (15, 0), keuken, "Keuken", 1)]
        case let day where trainingDays.contains(day):
            return [slot((18, 30), (21, 30), bar, "Kantine", 1)]
        default:
            return []
        }
    }

    static let volunteerNames = [
        "Jan", "Anne", "Sanne", "Pieter", "Fleur", "Daan", "Lotte", "Bram", "Noor", "Sem", "Eva", "Thijs", "Femke",
        "Ruben", "Iris", "Joost", "Marloes", "Kees", "Ingrid", "Wouter", "Mohamed", "Yara", "Henk", "Els",
    ]

    static func teamRecords(for tenant: KantineKoningSimulator.Tenant) -> [KantineKoningTeamRecord] {
        tenant.teams.map { team in
            KantineKoningTeamRecord(
                id: team.id ?? SeedRandom.uuid(seed: "kantinekoning|team|\(tenant.slug)|\(team.code)"),
                code: team.code,
                naam: team.naam
            )
        }
    }

    static func build(options: KantineKoningSimulator.Options) -> Result {
        guard let calendar = SeedCalendar(seedDay: options.seedDay, timeZone: options.timeZone) else {
            return Result(tenants: [], diensten: [])
        }
        let seedDays = calendar.seedDays
        let seedMidnightUTC = Int64(seedDays) * Civil.microsPerDay

        var tenants: [KantineKoningTenantRecord] = []
        var diensten: [KantineKoningDienst] = []
        var sequence = 0
        for (tenantIndex, tenant) in options.tenants.enumerated() {
            let teams = teamRecords(for: tenant)
            var rng = SeedRandom(seed: "kantinekoning|\(tenant.slug)|\(options.seedDay)")
            var base: [String: Double] = [:]
            var positions: [String: Int] = [:]
            for team in teams {
                var teamRng = SeedRandom(seed: "kantinekoning|season|\(tenant.slug)|\(team.code)")
                base[team.id] = Double(40 + Int(teamRng.next() % 120)) / 2
                positions[team.id] = Int(teamRng.next() % 5) - 2
            }
            tenants.append(
                KantineKoningTenantRecord(
                    slug: tenant.slug, name: tenant.name, teams: teams, seasonEnded: tenant.seasonEnded,
                    leaderboardOptOut: tenant.leaderboardOptOut, clubLogoURL: tenant.clubLogoURL,
                    baseSeasonHours: base, positionChange: positions
                )
            )

            var plan: [(day: Int, slot: Slot)] = []
            for day in -14...21 {
                let weekday = (Civil.weekday(ofDay: seedDays + day) + 1) % 7
                for s in slots(weekday: weekday, tenantIndex: tenantIndex) { plan.append((day, s)) }
            }
            let evening = slot((18, 30), (21, 30), bar, "Kantine", 1)
            if tenantIndex == 0, !plan.contains(where: { $0.day == 0 }) {
                plan.append((0, evening))
            } else if tenantIndex == 1, !plan.contains(where: { (1...3).contains($0.day) }) {
                plan.append((2, evening))
            }
            plan.sort { ($0.day, $0.slot.start.0, $0.slot.start.1) < ($1.day, $1.slot.start.0, $1.slot.start.1) }
            // The guaranteed dienst goes to the club's first team.
            let forcedIndex: Int? =
                switch tenantIndex {
                case 0: plan.firstIndex { $0.day == 0 }
                case 1: plan.firstIndex { (1...3).contains($0.day) }
                default: nil
                }

            var turn = tenantIndex
            var futureCount = 0
            var zeroFractionDone = false
            var transferDone = false
            for (index, (day, s)) in plan.enumerated() {
                let start = calendar.utcMicros(day, s.start)
                let end = calendar.utcMicros(day, s.end)
                let id = rng.uuid()
                var team: KantineKoningTeamRecord?
                if index == forcedIndex, let first = teams.first {
                    team = first
                } else if !teams.isEmpty {
                    // Every fifth future shift is still open.
                    if day > 0, futureCount % 5 == 3 {
                        team = nil
                    } else {
                        team = teams[turn % teams.count]
                        turn += 1
                    }
                }
                if day > 0 { futureCount += 1 }

                var names = volunteerNames
                var count: Int
                if team == nil {
                    count = 0
                } else if day < 0 {
                    count = s.minimum + Int(rng.next() % 2)
                } else if day == 0 {
                    count = s.minimum
                } else {
                    count = Int(rng.next() % UInt64(s.minimum + 1))
                }
                count = min(count, names.count)
                var picked: [String] = []
                for _ in 0..<count {
                    let i = Int(rng.next() % UInt64(names.count))
                    picked.append(names.remove(at: i))
                }

                // updated_at: past shifts when the last volunteer signed up or the shift was
                // confirmed afterwards; future ones some days before the seed day.
                var updated: Int64
                let fraction = Int64(rng.next() % 1_000_000)
                if day < 0 {
                    updated = end + Int64(1 + rng.next() % 3) * 3600 * Civil.microsPerSecond + fraction
                } else {
                    let daysBack = Int64(1 + rng.next() % 9)
                    let secondOfDay = Int64(7 * 3600 + rng.next() % (14 * 3600))
                    updated =
                        seedMidnightUTC - daysBack * Civil.microsPerDay + secondOfDay * Civil.microsPerSecond + fraction
                }
                if !zeroFractionDone, day > 0 {
                    // One whole-second value, still written with six digits.
                    updated -= updated % Civil.microsPerSecond
                    zeroFractionDone = true
                }
                var offered = false
                if !transferDone, day > 7, team != nil, count == 0 {
                    offered = true
                    transferDone = true
                }
                diensten.append(
                    KantineKoningDienst(
                        id: id, tenantSlug: tenant.slug, team: team, start: start, end: end,
                        minimumBemanning: s.minimum,
                        locatieNaam: s.location, aanmeldingen: picked, updatedAt: updated, typeNaam: s.type,
                        typeIcon: s.icon,
                        offeredForTransfer: offered, sequence: sequence
                    )
                )
                sequence += 1
            }
        }
        return Result(tenants: tenants, diensten: diensten)
    }
}
