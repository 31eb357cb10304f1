import AsyncHTTPClient
import Backends
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

/// Adding and removing volunteers against the Kantine Koning simulator, seeded on today in
/// Amsterdam with the demo's three enrollments (manager JO11-3 + JO11-5 and member JO13-1 +
/// JO11-5 at VV Wilhelmus, member JO10-5 at AGOVV).
@Suite("Kantine Koning volunteers")
struct KantineKoningVolunteersTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let prefix = "/api/mobile/v1/diensten/"

    static func withSimulator(
        openDienstenInList: Bool = false, _ body: (RunningSimulator, OperationContext) async throws -> Void
    ) async throws {
        let options = KantineKoningSimulator.Options(
            seedDay: LocalDate.today(in: zone).description, timeZone: zone, openDienstenInList: openDienstenInList
        )
        let sim = try await KantineKoningSimulator(options: options).start()
        let profile = ProfileConfig([
            KantineKoningSettings(
                endpoint: BackendEndpoint(baseURL: sim.apiBaseURL),
                enrollments: KantineKoningSimulator.demoEnrollments.map {
                    .init(tenant: $0.tenant, role: $0.role.rawValue, token: Secret($0.token), label: $0.label)
                }
            )
        ])
        try await SimulatorBackedTest.run(sim, profile: profile, zone: zone, body)
    }

    /// The diensten as the gateway reads them (two weeks back, a month ahead).
    static func diensten(_ context: OperationContext) async throws -> [Dienst] {
        let operation = KantineKoningDienstenOperation()
        let arguments = try operation.normalise(
            ["past_days": .int(14), "future_days": .int(30)], clock: RequestClock(now: Date(), timeZone: zone))
        let output = try await operation.fetch(arguments, context: context)
        return try JSONDecoder().decode([Dienst].self, from: output.body)
    }

    static func start(_ dienst: Dienst) -> Date { LenientDate.parse(dienst.start) ?? .distantPast }

    /// A manager's dienst starting at least an hour from now.
    static func futureManagerDienst(_ list: [Dienst], team: String? = nil) throws -> Dienst {
        try #require(
            list.first {
                $0.role == "manager" && $0.team != nil && start($0) > Date().addingTimeInterval(3600)
                    && $0.volunteers.count < 10
                    && (team == nil || $0.team?.code == team)
            })
    }

    static func error(_ body: () async throws -> Dienst) async -> (any Error)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    static func refusal(_ body: () async throws -> Dienst) async -> WriteRefusal? {
        await error(body) as? WriteRefusal
    }

    static func control(_ sim: RunningSimulator, _ path: String, json: String) async throws -> Int {
        var request = HTTPClientRequest(url: sim.baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    static func writes(_ sim: RunningSimulator, _ id: String) -> (post: Int, delete: Int) {
        (sim.control.calls("POST \(prefix)\(id)/volunteer"), sim.control.calls("DELETE \(prefix)\(id)/volunteer"))
    }

    // MARK: -

    @Test func addThenRemoveShowsInTheReads() async throws {
        try await Self.withSimulator { sim, context in
            let dienst = try Self.futureManagerDienst(try await Self.diensten(context))
            sim.control.resetStats()

            let added = try await KantineKoningVolunteers.add(
                name: "  Testpiet  ", toDienst: dienst.id, context: context)
            #expect(added.id == dienst.id)
            #expect(added.volunteers == dienst.volunteers + ["Testpiet"])
            #expect(added.role == "manager")
            #expect(added.tenant == KantineKoningSimulator.demoTenantA)
            #expect(added.team == dienst.team)
            #expect(added.start == dienst.start && added.end == dienst.end)
            #expect(added.openSpots == max(0, dienst.volunteersNeeded - dienst.volunteers.count - 1))
            #expect(added.updatedAt != dienst.updatedAt)
            #expect(Self.writes(sim, dienst.id) == (1, 0))

            let read = try #require(try await Self.diensten(context).first { $0.id == dienst.id })
            #expect(read.volunteers == added.volunteers)
            #expect(read == added)

            // A duplicate is refused before anything is sent.
            let duplicate = await Self.refusal {
                try await KantineKoningVolunteers.add(name: "Testpiet", toDienst: dienst.id, context: context)
            }
            #expect(duplicate?.status == 409)
            #expect(duplicate?.message.contains("Testpiet") == true)
            #expect(Self.writes(sim, dienst.id) == (1, 0))

            // Names are compared exactly, as in the club app: "testpiet" is not on it.
            let otherCase = await Self.refusal {
                try await KantineKoningVolunteers.remove(name: "testpiet", fromDienst: dienst.id, context: context)
            }
            #expect(otherCase?.status == 404)
            #expect(otherCase?.message.contains("Testpiet") == true, "names the one that differs by case")
            let removed = try await KantineKoningVolunteers.remove(
                name: "Testpiet", fromDienst: dienst.id, context: context)
            #expect(removed.volunteers == dienst.volunteers)
            #expect(removed.role == "manager")
            #expect(Self.writes(sim, dienst.id) == (1, 1))
            #expect(try await Self.diensten(context).first { $0.id == dienst.id }?.volunteers == dienst.volunteers)

            let gone = await Self.refusal {
                try await KantineKoningVolunteers.remove(name: "Testpiet", fromDienst: dienst.id, context: context)
            }
            #expect(gone?.status == 404)
            #expect(Self.writes(sim, dienst.id) == (1, 1))
        }
    }

    /// Two household profiles managing one team add the same name at once: changes to one dienst
    /// run one at a time whichever profile makes them, so the second sees the first's name and
    /// is refused — the club (which checks no duplicates) gets it once.
    @Test func twoProfilesAddingOneNameAtOnceAddItOnce() async throws {
        try await Self.withSimulator { sim, context in
            let dienst = try Self.futureManagerDienst(try await Self.diensten(context))
            var partner = context
            partner.profileName = "partner"
            sim.control.setFaults(SimulatorFaults(latencyMs: 300, method: "POST"))
            async let first = Self.error {
                try await KantineKoningVolunteers.add(name: "Piet", toDienst: dienst.id, context: context)
            }
            async let second = Self.error {
                try await KantineKoningVolunteers.add(name: "Piet", toDienst: dienst.id, context: partner)
            }
            let errors = await [first, second].compactMap { $0 }
            sim.control.clearFaults()
            #expect(errors.count == 1)
            #expect((errors.first as? WriteRefusal)?.status == 409)
            let read = try #require(try await Self.diensten(context).first { $0.id == dienst.id })
            #expect(read.volunteers.filter { $0 == "Piet" }.count == 1, "\(read.volunteers)")
        }
    }

    @Test func namesAreTrimmedAndOneToFifteenCharacters() async throws {
        try await Self.withSimulator { sim, context in
            let dienst = try Self.futureManagerDienst(try await Self.diensten(context))
            sim.control.resetStats()
            for name in ["", "   ", "\n\t", "Zestien tekens!!", "Jan\u{7}", "Jan\nPiet"] {
                let refused = await Self.refusal {
                    try await KantineKoningVolunteers.add(name: name, toDienst: dienst.id, context: context)
                }
                #expect(refused?.status == 400, "\(name.debugDescription)")
                #expect(refused?.code == "bad_request")
            }
            let empty = await Self.refusal {
                try await KantineKoningVolunteers.remove(name: " ", fromDienst: dienst.id, context: context)
            }
            #expect(empty?.status == 400)
            #expect(sim.control.totalCalls == 0, "refused before any upstream call")

            // 15 characters (not bytes) is fine.
            let fifteen = try await KantineKoningVolunteers.add(
                name: "Vijftien tekens", toDienst: dienst.id, context: context)
            #expect(fifteen.volunteers.last == "Vijftien tekens")
            let accents = try await KantineKoningVolunteers.add(
                name: "Zoë-Chloë Ångst", toDienst: dienst.id, context: context)
            #expect(accents.volunteers.last == "Zoë-Chloë Ångst")

            // Removing: a long name that is not there is bad input, a short one not found.
            let long = await Self.refusal {
                try await KantineKoningVolunteers.remove(
                    name: "Zestien tekens!!", fromDienst: dienst.id, context: context)
            }
            #expect(long?.status == 400)
            let absent = await Self.refusal {
                try await KantineKoningVolunteers.remove(name: "Niemand", fromDienst: dienst.id, context: context)
            }
            #expect(absent?.status == 404)
            #expect(Self.writes(sim, dienst.id) == (2, 0))
        }
    }

    @Test func managersOnlyFutureOnlyAndKnownDienstenOnly() async throws {
        try await Self.withSimulator { sim, context in
            let list = try await Self.diensten(context)
            sim.control.resetStats()
            for id in ["00000000-0000-0000-0000-000000000000", "../tenants", "a/b?c=d"] {
                let unknown = await Self.refusal {
                    try await KantineKoningVolunteers.add(name: "Jan", toDienst: id, context: context)
                }
                #expect(unknown?.status == 404, "\(id)")
            }
            let blank = await Self.refusal {
                try await KantineKoningVolunteers.add(name: "Jan", toDienst: " ", context: context)
            }
            #expect(blank?.status == 400)

            // Seen only by member enrollments: at club A (JO13-1) and at club B.
            let memberOnly = try #require(
                list.first { $0.role == "member" && $0.tenant == KantineKoningSimulator.demoTenantA })
            let clubB = try #require(list.first { $0.tenant == KantineKoningSimulator.demoTenantB })
            for dienst in [memberOnly, clubB] {
                let add = await Self.refusal {
                    try await KantineKoningVolunteers.add(name: "Jan", toDienst: dienst.id, context: context)
                }
                #expect(add?.status == 403)
                #expect(add?.code == "forbidden")
                let remove = await Self.refusal {
                    try await KantineKoningVolunteers.remove(
                        name: dienst.volunteers.first ?? "Jan", fromDienst: dienst.id, context: context)
                }
                #expect(remove?.status == 403)
            }

            // A manager's dienst that has started (seeded two weeks back).
            let past = try #require(
                list.first { $0.role == "manager" && Self.start($0) < Date() && !$0.volunteers.isEmpty })
            let late = await Self.refusal {
                try await KantineKoningVolunteers.add(name: "Jan", toDienst: past.id, context: context)
            }
            #expect(late?.status == 409)
            #expect(late?.message.contains("future") == true)
            let lateRemove = await Self.refusal {
                try await KantineKoningVolunteers.remove(
                    name: past.volunteers[0], fromDienst: past.id, context: context)
            }
            #expect(lateRemove?.status == 409)

            let written = sim.control.callCounts.filter { !$0.key.hasPrefix("GET ") }
            #expect(written.isEmpty, "nothing was sent but reads: \(written)")
        }
    }

    @Test func anOpenDienstHasNoManager() async throws {
        try await Self.withSimulator(openDienstenInList: true) { sim, context in
            let open = try #require(
                try await Self.diensten(context).first { $0.team == nil && Self.start($0) > Date() })
            let refused = await Self.refusal {
                try await KantineKoningVolunteers.add(name: "Jan", toDienst: open.id, context: context)
            }
            #expect(refused?.status == 403)
            #expect(Self.writes(sim, open.id) == (0, 0))
        }
    }

    @Test func theManagersTokenIsUsedAndARevokedOneLeavesOnlyMembers() async throws {
        try await Self.withSimulator { sim, context in
            let list = try await Self.diensten(context)
            // JO11-5 is seen by the manager and the member enrollment: the manager's token writes.
            let shared = try Self.futureManagerDienst(list, team: "JO11-5")
            let added = try await KantineKoningVolunteers.add(name: "Gedeeld", toDienst: shared.id, context: context)
            #expect(added.volunteers.contains("Gedeeld"))

            let status = try await Self.control(
                sim, "/_sim/tokens/revoke", json: #"{"token":"\#(KantineKoningSimulator.demoManagerToken)"}"#)
            #expect(status == 200)
            // Now only the member enrollment sees JO11-5; JO11-3 nobody sees.
            let members = await Self.refusal {
                try await KantineKoningVolunteers.add(name: "Jan", toDienst: shared.id, context: context)
            }
            #expect(members?.status == 403)
            let own = try Self.futureManagerDienst(list, team: "JO11-3")
            let unseen = await Self.refusal {
                try await KantineKoningVolunteers.add(name: "Jan", toDienst: own.id, context: context)
            }
            #expect(unseen?.status == 404)
            #expect(unseen?.message.contains("not asked") == true)
        }
    }

    /// The club's own refusal reaches the client with its status, text and code: here the
    /// config calls an enrollment a manager while its token is a member's, so the gateway's
    /// checks pass and Kantine Koning answers 403 `team_access_denied`.
    @Test func anUpstreamRefusalKeepsItsStatusAndMessage() async throws {
        try await Self.withSimulator { sim, context in
            let member = KantineKoningSimulator.demoEnrollments[1]
            var context = context
            context.profile = ProfileConfig([
                KantineKoningSettings(
                    endpoint: try #require(context.profile.kantinekoning).endpoint,
                    enrollments: [
                        .init(tenant: member.tenant, role: "manager", token: Secret(member.token), label: "mislabelled")
                    ])
            ])
            let dienst = try #require(
                try await Self.diensten(context).first {
                    $0.team?.code == "JO13-1" && Self.start($0) > Date().addingTimeInterval(3600)
                })
            sim.control.resetStats()
            let error = await Self.error {
                try await KantineKoningVolunteers.add(name: "Jan", toDienst: dienst.id, context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .rejected)
            #expect(failure.status == 403)
            #expect(failure.message.contains("niet gemachtigd") && failure.message.contains("team_access_denied"))
            #expect(Self.writes(sim, dienst.id) == (1, 0))
        }
    }

    @Test func aFailedWriteIsNeverRetried() async throws {
        try await Self.withSimulator { sim, context in
            let dienst = try Self.futureManagerDienst(try await Self.diensten(context))
            sim.control.resetStats()

            // 500 after the change was stored: a retry would meet its own write.
            #expect(
                try await Self.control(sim, "/_sim/writes/fail", json: #"{"status":500,"after_write":true}"#) == 200)
            let error = await Self.error {
                try await KantineKoningVolunteers.add(name: "Wim", toDienst: dienst.id, context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .status)
            #expect(failure.status == 500)
            #expect(Self.writes(sim, dienst.id) == (1, 0))
            #expect(try await Self.diensten(context).first { $0.id == dienst.id }?.volunteers.contains("Wim") == true)

            // 503 on a removal, before anything changed.
            #expect(try await Self.control(sim, "/_sim/writes/fail", json: #"{"status":503}"#) == 200)
            let removal = await Self.error {
                try await KantineKoningVolunteers.remove(name: "Wim", fromDienst: dienst.id, context: context)
            }
            #expect((removal as? BackendError)?.status == 503)
            #expect(Self.writes(sim, dienst.id) == (1, 1))
        }
    }

    @Test func notConfigured() async throws {
        let context = OperationContext(
            profileName: "default", profile: ProfileConfig(), clock: RequestClock(now: Date(), timeZone: Self.zone),
            http: UpstreamHTTP(client: .shared),
            sessions: SessionRegistry(vault: MemoryCredentialVault()), logger: Logger(label: "test")
        )
        let error = await Self.error {
            try await KantineKoningVolunteers.add(name: "Jan", toDienst: "x", context: context)
        }
        #expect((error as? BackendError)?.kind == .notConfigured)
    }
}
