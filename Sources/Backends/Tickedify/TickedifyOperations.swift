import Foundation
import Model

/// `tickedify.daily_plan`: the planned slots of a day (`date`, default today).
public struct TickedifyDailyPlanOperation: TickedifyOperation {
    public init() {}
    public var name: String { "tickedify.daily_plan" }
    public var bodySchema: SchemaComponent { TickedifySchemas.dailyPlan }
    public var defaultTTL: TimeInterval { 60 }
    public var arguments: [OperationArgument] { [OperationArgument("date", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        ["date": arguments["date"] ?? .date(clock.today)]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try TickedifyClient.make(context)
        let date = arguments["date"]?.date ?? context.today
        let path = "/api/dagelijkse-planning/\(QueryString.pathSegment(date.description))"
        // The server crashes on this route without a valid session.
        let value = try await client.get(path, session: .provenFirst)
        return try OperationOutput(encoding: TickedifyNormalisation.planItems(value))
    }
}

/// `tickedify.list`: an open-task list (`list`: inbox, acties, opvolgen).
public struct TickedifyListOperation: TickedifyOperation {
    public static let lists = ["inbox", "acties", "opvolgen"]
    public init() {}
    public var name: String { "tickedify.list" }
    public var bodySchema: SchemaComponent { TickedifySchemas.taskList }
    public var defaultTTL: TimeInterval { 120 }
    public var arguments: [OperationArgument] {
        [OperationArgument("list", .string, required: true), OperationArgument("future", .bool)]
    }

    /// `acties` lists what Tickedify's sidebar counts (`counts.acties`): the actions due by the
    /// household's today (`verschijndatum` empty, today or earlier). Those that appear later
    /// come only with `future` true. The day is part of the arguments, so the list is read
    /// again on the next day.
    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        guard let list = arguments["list"]?.string, Self.lists.contains(list) else {
            throw ErrorDetail.badParameter("list must be one of \(Self.lists.joined(separator: ", "))")
        }
        guard list == "acties" else { return ["list": .string(list)] }
        if arguments["future"] == .bool(true) { return ["list": .string(list), "future": .bool(true)] }
        return ["list": .string(list), "due_by": .date(clock.today)]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try TickedifyClient.make(context)
        let list = arguments["list"]?.string ?? "inbox"
        // An unauthenticated /api/lijst answers 404, so the session must be proven first.
        let value = try await client.get("/api/lijst/\(QueryString.pathSegment(list))", session: .provenFirst)
        return try OperationOutput(
            encoding: Self.tasks(value, arguments: arguments, today: context.today, zone: context.timeZone))
    }

    /// The list's answer for normalised `arguments`: its tasks, and of `acties` (without
    /// `future`) those due by `due_by`.
    static func tasks(_ value: JSONValue, arguments: [String: ArgumentValue], today: LocalDate, zone: TimeZone) throws
        -> [TaskItem]
    {
        let list = arguments["list"]?.string ?? "inbox"
        let tasks = try TickedifyNormalisation.tasks(value, list: list, zone: zone)
        guard list == "acties", arguments["future"] != .bool(true) else { return tasks }
        return due(tasks, by: arguments["due_by"]?.date ?? today)
    }

    /// The actions due by `day`, as Tickedify's sidebar counts them: no `verschijndatum`, or
    /// one on `day` or before.
    static func due(_ tasks: [TaskItem], by day: LocalDate) -> [TaskItem] {
        tasks.filter { (task: TaskItem) -> Bool in
            guard let text = task.appearsOn, let appears = LocalDate(text) else { return true }
            return appears <= day
        }
    }
}

/// `tickedify.completed`: the tasks completed on a local day (`date`, default today), newest
/// first. Tickedify drops completed tasks from the daily plan, so this is how "done today" is
/// known; it reads the `afgewerkte-taken` list and keeps the day's `afgewerkt` times.
public struct TickedifyCompletedOperation: TickedifyOperation {
    public init() {}
    public var name: String { "tickedify.completed" }
    public var bodySchema: SchemaComponent { TickedifySchemas.completedTaskList }
    public var defaultTTL: TimeInterval { 120 }
    public var arguments: [OperationArgument] { [OperationArgument("date", .date)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        ["date": arguments["date"] ?? .date(clock.today)]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try TickedifyClient.make(context)
        let day = arguments["date"]?.date ?? context.today
        let value = try await client.get("/api/lijst/afgewerkte-taken", session: .provenFirst)
        return try OperationOutput(encoding: Self.completed(value, on: day, zone: context.timeZone))
    }

    /// The tasks of the `afgewerkte-taken` answer completed on the local `day`, newest first,
    /// each on the list `afgewerkt`: the real server answers its archive rows as they were
    /// archived, so their `lijst` is still the list they were on (`acties`, `inbox`; recorded,
    /// exchanges 039, 050).
    static func completed(_ value: JSONValue, on date: LocalDate, zone: TimeZone) throws -> [TaskItem] {
        let day = date.interval(in: zone)
        let done = try TickedifyNormalisation.tasks(value, list: "afgewerkt", zone: zone).compactMap {
            task -> TaskItem? in
            guard let completed = task.completedAt.flatMap({ LenientDate.parse($0) }),
                completed >= day.start && completed < day.end
            else { return nil }
            var task = task
            task.list = "afgewerkt"
            return task
        }
        return done.sorted { ($0.completedAt ?? "") > ($1.completedAt ?? "") }
    }
}

/// `tickedify.counts`: the sidebar counts.
public struct TickedifyCountsOperation: TickedifyOperation {
    public init() {}
    public var name: String { "tickedify.counts" }
    public var bodySchema: SchemaComponent { TaskCounts.schemaComponent }
    public var defaultTTL: TimeInterval { 120 }
    public var arguments: [OperationArgument] { [] }
    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        [:]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let client = try TickedifyClient.make(context)
        let value = try await client.get("/api/counts/sidebar", session: .loginOn401)
        return try OperationOutput(encoding: TickedifyNormalisation.counts(value))
    }
}

/// What every Tickedify operation shares: the backend, when a profile has it, and the
/// credential its cache entries are keyed by.
public protocol TickedifyOperation: BackendOperation {}

extension TickedifyOperation {
    public var backend: String { TickedifyClient.backend }
    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.tickedify != nil }
    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.tickedify.map(TickedifyClient.fingerprint) ?? CredentialFingerprint.none
    }
}

extension TickedifyClient {
    static func make(_ context: OperationContext) throws -> TickedifyClient {
        guard let settings = context.profile.tickedify else {
            throw BackendError(
                .notConfigured, backend: backend,
                message: "Tickedify is not configured for profile \(context.profileName)")
        }
        return TickedifyClient(settings: settings, context: context)
    }
}
