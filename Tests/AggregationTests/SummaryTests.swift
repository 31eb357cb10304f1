import Backends
import Cache
import Foundation
import Model
import Synchronization
import Testing

@testable import Aggregation

/// `Summary` and `SummaryService` with scripted backends and a fixed clock: what "today",
/// "next event" and "next dienst" mean around midnight and the DST switch.
@Suite("Summary for home automation")
struct SummaryTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    /// Answers a fixed body and remembers the arguments of its last call.
    struct RecordingOperation: BackendOperation {
        let name: String
        let backend: String
        let body: Data?
        let seen = ArgumentLog()

        var defaultTTL: TimeInterval { 60 }

        var bodySchema: SchemaComponent { .anyJSON }
        var arguments: [OperationArgument] { [] }
        func isConfigured(for profile: ProfileConfig) -> Bool { true }
        func credentialFingerprint(for profile: ProfileConfig) -> String { "none" }
        func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
            arguments
        }
        func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
            seen.record(arguments.mapValues(\.description))
            guard let body else {
                throw BackendError(.unreachable, backend: backend, message: "\(backend) could not be reached")
            }
            return OperationOutput(body: body)
        }
    }

    final class ArgumentLog: Sendable {
        private let last = Mutex<[String: String]>([:])
        func record(_ arguments: [String: String]) { last.withLock { $0 = arguments } }
        subscript(name: String) -> String? { last.withLock { $0[name] } }
    }

    final class Clock: Sendable {
        private let time: Mutex<Date>
        init(_ start: Date) { time = Mutex(start) }
        func now() -> Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func time(_ text: String) -> Date { LenientDate.parse(text)! }

    static func encoded(_ value: some Encodable) -> Data { try! JSONCoding.encode(value) }

    struct Backends {
        var plan: RecordingOperation
        var completed: RecordingOperation
        var events: RecordingOperation
        var diensten: RecordingOperation
        var nutrition: RecordingOperation
        var registry: OperationRegistry { OperationRegistry([plan, completed, events, diensten, nutrition]) }

        static func with(failing: Bool = false, events: [Event] = [], diensten: [Dienst] = []) -> Backends {
            func op(_ name: String, _ backend: String, _ body: Data) -> RecordingOperation {
                RecordingOperation(name: name, backend: backend, body: failing ? nil : body)
            }
            let plan = [
                PlanItem(
                    id: "p1", taskID: "t1", title: "Belasting", hour: 9, position: 0, kind: .task, durationMinutes: 30,
                    projectID: nil, contextID: nil),
                PlanItem(
                    id: "p2", taskID: nil, title: "Lunch", hour: 12, position: 0, kind: .break, durationMinutes: 30,
                    projectID: nil, contextID: nil),
                PlanItem(
                    id: "p3", taskID: "t2", title: "Mama bellen", hour: 13, position: 0, kind: .task,
                    durationMinutes: 15, projectID: nil, contextID: nil),
            ]
            let done = [
                TaskItem(
                    id: "t9", title: "Planten", list: "afgewerkt", priority: nil, appearsOn: nil, durationMinutes: nil,
                    projectID: nil, contextID: nil, recurrence: nil, createdAt: nil,
                    completedAt: "2026-03-29T00:10:00+01:00"
                )
            ]
            let meals = NutritionSummary.Meals(
                breakfast: .init(calories: 400, items: 1), lunch: .init(calories: nil, items: 0),
                dinner: .init(calories: nil, items: 0), snack: .init(calories: nil, items: 0)
            )
            let nutrition = NutritionSummary(
                date: "2026-03-29", calories: 400, proteinG: 20, carbsG: 50, fatG: 10, goalCalories: 2000,
                remainingCalories: nil, meals: meals
            )
            return Backends(
                plan: op("tickedify.daily_plan", "tickedify", encoded(plan)),
                completed: op("tickedify.completed", "tickedify", encoded(done)),
                events: op("eightalls.events", "eightalls", encoded(events)),
                diensten: op("kantinekoning.diensten", "kantinekoning", encoded(diensten)),
                nutrition: op("fitiq.nutrition", "fitiq", encoded(nutrition))
            )
        }
    }

    static func service(_ backends: Backends, clock: Clock) throws -> (SummaryService, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-summary-\(UUID().uuidString)"
        ).path
        let config = DaygateConfig(stateDir: folder, timezone: zone.identifier, profiles: ["default": ProfileConfig()])
        let store = CacheStore(
            database: try CacheDatabase(stateDirectory: folder), maxBytes: 1_048_576, memoryBytes: 1_048_576,
            now: clock.now
        )
        let aggregator = Aggregator(
            config: config, cache: store, http: UpstreamHTTP(client: .shared),
            sessions: SessionRegistry(vault: MemoryCredentialVault()),
            now: clock.now
        )
        // The scripted backends answer at once; a deadline only a hang reaches (under a loaded
        // parallel run a 2 s one turned instant answers into timeouts: 4 s of waiting for a thread).
        return (SummaryService(aggregator: aggregator, registry: backends.registry, deadline: 60), folder)
    }

    static func summary(_ backends: Backends, at now: Date) async throws -> (JSONValue, AggregateAnswer) {
        let (service, folder) = try service(backends, clock: Clock(now))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let answer = try await service.run(profileName: "default", forceRefresh: false)
        return (try JSONDecoder().decode(JSONValue.self, from: answer.body), answer)
    }

    static func dienst(_ id: String, start: String, tenant: String) -> Dienst {
        Dienst(
            id: id, tenant: tenant, team: .init(id: "t", code: "JO11-3", name: "JO11-3"), start: start, end: start,
            location: "Kantine", type: nil, status: "ingepland", volunteers: [], volunteersNeeded: 2, role: "manager",
            offeredForTransfer: false, updatedAt: nil
        )
    }

    /// 01:30 on the night the clocks go forward: today is still the 29th, the coming week runs
    /// from it, and the next event is the first one that has not started (not today's all-day
    /// event, not the cancelled one, not the one already under way).
    @Test func aroundTheDSTSwitch() async throws {
        let events = [
            Event(id: "a", title: "Night shift", start: "2026-03-29T01:00:00+01:00", end: "2026-03-29T04:00:00+02:00"),
            Event(
                id: "b", title: "Zomertijd", start: "2026-03-29T00:00:00+01:00", end: "2026-03-30T00:00:00+02:00",
                allDay: true),
            Event(
                id: "c", title: "Cancelled brunch", start: "2026-03-29T03:30:00+02:00",
                end: "2026-03-29T04:00:00+02:00", status: "cancelled"),
            Event(id: "d", title: "Run", start: "2026-03-29T08:00:00+02:00", end: "2026-03-29T09:00:00+02:00"),
            Event(
                id: "e", title: "Tomorrow's standup", start: "2026-03-30T09:00:00+02:00",
                end: "2026-03-30T09:15:00+02:00"),
        ]
        let diensten = [
            Self.dienst("old", start: "2026-03-28T10:00:00+01:00", tenant: "agovv"),
            Self.dienst("next", start: "2026-03-29T10:00:00+02:00", tenant: "vvwilhelmus"),
        ]
        let backends = Backends.with(events: events, diensten: diensten)
        let (body, answer) = try await Self.summary(backends, at: Self.time("2026-03-29T01:30:00+01:00"))
        #expect(answer.status == 200)
        #expect(body["date"] == .string("2026-03-29"))
        #expect(backends.plan.seen["date"] == "2026-03-29")
        #expect([backends.events.seen["from"], backends.events.seen["to"]] == ["2026-03-29", "2026-04-04"])
        #expect(body["next_event_title"] == .string("Run"))
        #expect(body["next_event_start"] == .string("2026-03-29T08:00:00+02:00"))
        #expect(body["events"]?["count"] == .number(4), "today's four, not tomorrow's")
        #expect(body["next_dienst_start"] == .string("2026-03-29T10:00:00+02:00"))
        #expect(body["next_dienst_club"] == .string("vvwilhelmus"))
        #expect(body["tasks_planned"] == .number(2))
        #expect(body["tasks_done"] == .number(1))
        #expect(body["kcal_today"] == .number(400))
        #expect(body["kcal_remaining"] == .number(1600), "goal minus eaten when FitIQ gives no remainder")
        #expect(body["complete"] == .bool(true))
        #expect(body["tasks"]?["open_titles"] == .array([.string("Belasting"), .string("Mama bellen")]))
    }

    @Test func midnightDecidesToday() async throws {
        let before = try await Self.summary(Backends.with(), at: Self.time("2026-11-22T23:59:30+01:00")).0
        let after = try await Self.summary(Backends.with(), at: Self.time("2026-11-23T00:00:30+01:00")).0
        #expect(before["date"] == .string("2026-11-22"))
        #expect(after["date"] == .string("2026-11-23"))
    }

    @Test func everyBackendDownIsStillAnAnswerWithEveryKey() async throws {
        let (body, answer) = try await Self.summary(
            Backends.with(failing: true), at: Self.time("2026-11-22T12:00:00+01:00"))
        #expect(answer.status == 200)
        for key in [
            "tasks_planned", "tasks_done", "next_event_title", "next_event_start", "next_dienst_start",
            "next_dienst_club",
            "kcal_today", "kcal_remaining", "next_task_title", "next_task_id", "next_task_start",
        ] {
            #expect(body[key] == .null, "\(key) is null, present")
        }
        // The keys Home Assistant templates rely on, whichever backend writes them, and every
        // key of every backend's part.
        let keys = Set(body.objectValue?.keys ?? [])
        for part in BackendCatalog.summaryParts {
            #expect(keys.isSuperset(of: part.keySchemas.keys), "\(part.keySchemas.keys.sorted())")
        }
        #expect(
            keys.isSuperset(of: [
                "date", "timezone", "tasks_planned", "tasks_done", "next_event_title", "next_event_start",
                "next_dienst_start", "next_dienst_club", "kcal_today", "kcal_remaining", "stale", "complete",
                "age_seconds", "events", "plan", "tasks", "diensten", "nutrition", "sections", "next_task_title",
                "next_task_id", "next_task_start", "next_task",
            ]))
        #expect(body["plan"]?["items"] == .array([]))
        #expect(body["nutrition"]?["calories"] == .null)
        #expect(body["complete"] == .bool(false))
        #expect(body["events"]?["count"] == .number(0))
        #expect(body["sections"]?["plan"]?["status"] == .string("error"))
        #expect(body["sections"]?["plan"]?["error"]?["code"] == .string("upstream_unreachable"))
    }

    /// Ten seconds later the same data comes from the cache: the body differs (age, `cache`,
    /// `duration_ms`), the ETag's input does not.
    @Test func theValidatorIgnoresAgeAndCacheOutcome() async throws {
        let clock = Clock(Self.time("2026-11-22T12:00:00+01:00"))
        let (service, folder) = try Self.service(Backends.with(), clock: clock)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await service.run(profileName: "default", forceRefresh: false)
        clock.advance(10)
        let second = try await service.run(profileName: "default", forceRefresh: false)
        #expect(first.lookups["plan"]?.outcome == .miss)
        #expect(second.lookups["plan"]?.outcome == .fresh)
        #expect(second.ageSeconds == 10)
        #expect(first.body != second.body)
        #expect(first.validatorBody == second.validatorBody)
    }

    /// A summary built from fresh hits is reused like any answer (Home Assistant's polls take
    /// the hot path), but never past the moment the clock alone changes it: when the next event
    /// starts, it is no longer "next".
    @Test func aSummaryIsReusableUntilTheNextEventStarts() async throws {
        let start = Self.time("2026-11-22T11:59:59.500+01:00")
        let events = [
            Event(id: "m", title: "Lunch", start: "2026-11-22T12:00:00+01:00", end: "2026-11-22T13:00:00+01:00")
        ]
        let clock = Clock(start)
        let (service, folder) = try Self.service(Backends.with(events: events), clock: clock)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await service.run(profileName: "default", forceRefresh: false)  // fetched: not reusable
        clock.advance(0.2)
        let hits = try await service.run(profileName: "default", forceRefresh: false)
        #expect(hits.lookups["events"]?.outcome == .fresh)
        #expect(
            hits.reusableUntil == Self.time("2026-11-22T12:00:00+01:00"), "not a second later, when Lunch has begun")

        let quiet = Clock(Self.time("2026-11-22T14:00:00.250+01:00"))
        let (later, laterFolder) = try Self.service(Backends.with(events: events), clock: quiet)
        defer { try? FileManager.default.removeItem(atPath: laterFolder) }
        _ = try await later.run(profileName: "default", forceRefresh: false)
        quiet.advance(0.2)
        let reused = try await later.run(profileName: "default", forceRefresh: false)
        #expect(reused.reusableUntil == Self.time("2026-11-22T14:00:01.250+01:00"), "nothing starts: the next age tick")
    }
}
