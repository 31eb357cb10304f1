import CalendarReader
import Foundation
import Model

/// `ics.events`: the events of the profile's subscribed calendars (or of one, `calendar`)
/// over a local day (`date`) or the local days `from`…`to` (at most 366), as unified events
/// that say their calendar and carry its colour. Recurring events are expanded only over the
/// asked days. A calendar that cannot be fetched serves its last copy with an issue; one
/// never fetched is an issue of its own; a malformed event is skipped with an issue that names
/// the calendar and the line. Each feed is fetched at most once per its `refresh` interval
/// (`ICSFeedStore`); the answer itself is kept a minute, so the days roll over on time.
///
/// A feed is untrusted: the expansion runs on `ICSWorkers` (never on the threads serving
/// requests), each feed within `ICSLimits` and the whole answer within
/// `maximumAnswerInstances` and `answerDuration`; what a limit leaves out is an issue
/// `feed_limit` of that calendar.
public struct ICSEventsOperation: BackendOperation {
    public static let maximumDays = 366
    /// Issues one calendar may add to an answer (a broken feed can have thousands); the
    /// `feed_limit` issues come on top (a feed has at most a few).
    static let maximumIssuesPerCalendar = 5
    /// Occurrences one answer holds, every calendar together.
    public static let maximumAnswerInstances = 50_000
    /// Occurrences one answer holds per day it covers, every calendar together: a real
    /// household's busiest day has tens, a year of a school's calendar about 30 a day. The
    /// bound that keeps a day small — a hostile feed's day was 20,000 occurrences (~5 MB),
    /// which every request for the day then composed.
    public static let maximumInstancesPerDay = 1_000
    /// The same for one calendar, so that one hostile feed leaves room for the others.
    public static let maximumFeedInstancesPerDay = 500

    /// Occurrences an answer over `days` days may hold.
    static func answerInstances(days: Int) -> Int {
        min(maximumAnswerInstances, maximumInstancesPerDay * max(1, days))
    }
    /// How long expanding the calendars of one answer may take, every calendar together.
    public static let answerDuration: Duration = .seconds(5)

    let feeds: ICSFeedStore
    let workers: ICSWorkers
    let limits: ICSLimits
    let memo: ICSExpansionMemo

    public init() {
        self.init(feeds: .shared)
    }

    init(
        feeds: ICSFeedStore, workers: ICSWorkers = .shared, limits: ICSLimits = .standard,
        memo: ICSExpansionMemo = .shared
    ) {
        self.feeds = feeds
        self.workers = workers
        self.limits = limits
        self.memo = memo
    }

    public var name: String { "ics.events" }
    public var backend: String { ICSSettings.backend }
    public var defaultTTL: TimeInterval { 60 }
    public var bodySchema: SchemaComponent { ICSSchemas.subscribedEventList }
    public var arguments: [OperationArgument] {
        [
            OperationArgument("date", .date), OperationArgument("from", .date), OperationArgument("to", .date),
            OperationArgument("calendar", .string), OperationArgument("event_type", .string),
            OperationArgument("status", .string),
        ]
    }

    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.ics != nil }

    /// The calendars' sources and credentials: another address or account is another entry.
    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.ics?.fingerprint ?? CredentialFingerprint.none
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        let days = try LocalDayRange(arguments, today: clock.today, maximumDays: Self.maximumDays)
        var normalised: [String: ArgumentValue] = ["from": .date(days.first), "to": .date(days.last)]
        normalised["calendar"] = arguments["calendar"]
        normalised["event_type"] = arguments["event_type"]
        normalised["status"] = arguments["status"]
        return normalised
    }

    /// An event of a calendar several members subscribe to (the same address) is one event:
    /// its identity is the calendar's address (hashed: it may hold a token) with the event's
    /// UID and start, which is its id without the member's own name for the calendar.
    public func sharedIdentity(of item: JSONValue, for profile: ProfileConfig) -> String? {
        guard let name = item["calendar"]?.stringValue, let id = item["id"]?.stringValue,
            let calendar = profile.ics?.calendar(named: name), id.hasPrefix(name + ":")
        else { return nil }
        let address = CredentialFingerprint.of(["ics-calendar", calendar.url.reveal()])
        return "ics:" + address + ":" + id.dropFirst(name.count + 1)
    }

    public func validate(_ arguments: [String: ArgumentValue], for profile: ProfileConfig) throws {
        if let name = arguments["calendar"]?.string, profile.ics?.calendar(named: name) == nil {
            let known = profile.ics?.calendars.map(\.name).joined(separator: ", ") ?? ""
            throw ErrorDetail.badParameter("no calendar \(name) (calendars: \(known))")
        }
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        guard let settings = context.profile.ics else {
            throw BackendError(
                .notConfigured, backend: backend,
                message: "no calendars are configured for profile \(context.profileName)")
        }
        guard let from = arguments["from"]?.date, let to = arguments["to"]?.date else {
            throw ErrorDetail.badParameter("from and to are required")
        }
        let chosen =
            arguments["calendar"]?.string.map { name in settings.calendars.filter { $0.name == name } }
            ?? settings.calendars
        let limits = self.limits
        let memo = self.memo
        let answers = await withTaskGroup(of: (Int, Result<ICSFeedStore.Answer, any Error>).self) { group in
            for (index, calendar) in chosen.enumerated() {
                group.addTask {
                    do {
                        return (
                            index,
                            .success(
                                try await feeds.feed(
                                    calendar, timeout: settings.timeout.seconds, context: context, limits: limits,
                                    workers: workers))
                        )
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var all: [(Int, Result<ICSFeedStore.Answer, any Error>)] = []
            for await answer in group { all.append(answer) }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }

        let zone = context.timeZone
        let filters = (status: arguments["status"]?.string, type: arguments["event_type"]?.string)
        let output = try await workers.run(maximumDuration: Self.answerDuration) { budget in
            Result {
                try Self.answer(
                    Array(zip(chosen, answers)), from: from, to: to.adding(days: 1), zone: zone, limits: limits,
                    filters: filters, budget: budget, memo: memo)
            }
        }
        return try output.get()
    }

    /// The answer from the calendars' copies (or why each has none): every feed expanded over
    /// `[from, to)` within `limits` and what is left of the answer's instances and `budget`,
    /// filtered, ordered and encoded. Runs on a worker.
    static func answer(
        _ calendars: [(ICSSettings.Calendar, Result<ICSFeedStore.Answer, any Error>)], from: LocalDate,
        to: LocalDate, zone: TimeZone, limits: ICSLimits, filters: (status: String?, type: String?),
        budget: ICSWorkBudget, memo: ICSExpansionMemo
    ) throws -> OperationOutput {
        var events: [(Date, Event)] = []
        var issues: [SectionIssue] = []
        var failures: [BackendError] = []
        let days = max(1, from.days(to: to))
        let room = answerInstances(days: days)
        let feedRoom = maximumFeedInstancesPerDay * days
        for (calendar, answer) in calendars {
            switch answer {
            case .failure(let error):
                let failure =
                    error as? BackendError
                    ?? BackendError(
                        .unreachable, backend: ICSSettings.backend, message: "\(calendar.name) could not be fetched")
                failures.append(failure)
                issues.append(SectionIssue(scope: calendar.name, code: failure.kind.rawValue, message: failure.message))
            case .success(let answer):
                if let failure = answer.failure {
                    let since = LenientDate.format(answer.copy.checkedAt, in: zone)
                    issues.append(
                        SectionIssue(
                            scope: calendar.name, code: failure.kind.rawValue,
                            message: "\(failure.message); showing the copy checked at \(since)"))
                }
                switch answer.copy.calendar {
                case .failure(let error):
                    issues.append(
                        SectionIssue(scope: calendar.name, code: "bad_feed", message: "\(calendar.name): \(error)"))
                case .success(let feed):
                    var feedLimits = limits
                    feedLimits.maximumInstances = min(limits.maximumInstances, feedRoom, room - events.count)
                    guard feedLimits.maximumInstances > 0, budget.check() else {
                        let reason =
                            budget.isExhausted
                            ? "expanding this answer's calendars took longer than \(answerDuration)"
                            : "the answer already holds \(room) events, the most an answer over its days may hold"
                        issues.append(
                            SectionIssue(
                                scope: calendar.name, code: "feed_limit",
                                message: "\(calendar.name): left out because \(reason)"))
                        continue
                    }
                    let expansion = Self.expansion(
                        of: feed, copy: answer.copy, calendar: calendar, from: from, to: to, zone: zone,
                        limits: feedLimits, budget: budget, memo: memo)
                    let found = feed.issues + expansion.issues
                    issues += found.filter { $0.kind == .limit }.map {
                        SectionIssue(scope: calendar.name, code: "feed_limit", message: "\(calendar.name): \($0)")
                    }
                    issues += found.filter { $0.kind == .problem }.prefix(maximumIssuesPerCalendar).map {
                        SectionIssue(scope: calendar.name, code: "event_skipped", message: "\(calendar.name): \($0)")
                    }
                    events += expansion.events.lazy.map { ($0.start, $0.event) }
                }
            }
        }
        if budget.stop == .cancelled { throw CancellationError() }
        if failures.count == calendars.count, let first = failures.first {
            throw first
        }
        let unified =
            events
            .filter { filters.status == nil || $0.1.status == filters.status }
            .filter { filters.type == nil || $0.1.type == filters.type }
            .sorted { ($0.0, $0.1.end, $0.1.title, $0.1.id) < ($1.0, $1.1.end, $1.1.title, $1.1.id) }
            .map(\.1)
        return try OperationOutput(encoding: unified, issues: issues)
    }

    /// One calendar's events over `[from, to)` and the issues of their expansion: from `memo`
    /// when it kept this copy's expansion over this range, else expanded within `limits` and
    /// `budget` (and kept, unless a deadline or a cancellation cut it short).
    static func expansion(
        of feed: ICSCalendar, copy: ICSFeedCopy, calendar: ICSSettings.Calendar, from: LocalDate, to: LocalDate,
        zone: TimeZone, limits: ICSLimits, budget: ICSWorkBudget, memo: ICSExpansionMemo
    ) -> ICSExpansionMemo.Expansion {
        let key = ICSExpansionMemo.Key(
            digest: copy.digest, byteCount: copy.byteCount, changedAt: copy.changedAt, calendar: calendar.name,
            color: calendar.color, from: from, to: to, zone: zone.identifier, maximumInstances: limits.maximumInstances)
        if let kept = memo.expansion(key) { return kept }
        let feedBudget = ICSWorkBudget(limits, parent: budget)
        let expanded = feed.expand(from: from, to: to, limits: limits, budget: feedBudget)
        let expansion = ICSExpansionMemo.Expansion(
            events: expanded.occurrences.map { ($0.start, Self.event($0, calendar: calendar, zone: zone)) },
            issues: expanded.issues)
        if feedBudget.stop == nil || feedBudget.stop == .steps, budget.stop == nil {
            memo.keep(expansion, under: key)
        }
        return expansion
    }

    /// The unified event of one occurrence. Its id is stable across fetches: calendar, UID and
    /// the instance's place in its series (`RECURRENCE-ID`, else its start).
    static func event(_ occurrence: ICSOccurrence, calendar: ICSSettings.Calendar, zone: TimeZone) -> Event {
        let instant = Int((occurrence.recurrenceID ?? occurrence.start).timeIntervalSince1970)
        return Event(
            id: "\(calendar.name):\(occurrence.uid):\(instant)", title: occurrence.summary ?? "(no title)",
            description: occurrence.description, start: LenientDate.format(occurrence.start, in: zone),
            end: LenientDate.format(occurrence.end, in: zone), allDay: occurrence.isAllDay,
            location: occurrence.location, status: "confirmed", type: nil, color: calendar.color, tags: [],
            calendar: calendar.name)
    }
}
