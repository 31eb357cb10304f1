import CalendarReader
import Foundation
import Model

/// `ics.calendars`: the profile's subscribed calendars and their state — where each comes
/// from (host only: a secret address keeps its secret), its colour and refresh interval, when
/// its feed was last checked and last changed, how many events it holds, and its error, if
/// any. Asking checks each feed as `ics.events` would (at most once per its `refresh`). A feed
/// whose reading a limit cut short (`ICSLimits`) is an issue `feed_limit` of the section.
public struct ICSCalendarsOperation: BackendOperation {
    let feeds: ICSFeedStore
    let workers: ICSWorkers
    let limits: ICSLimits

    public init() {
        self.init(feeds: .shared)
    }

    init(feeds: ICSFeedStore, workers: ICSWorkers = .shared, limits: ICSLimits = .standard) {
        self.feeds = feeds
        self.workers = workers
        self.limits = limits
    }

    struct State: Encodable {
        var name: String
        @Nullable var color: String?
        var source: String
        var auth: String
        var refreshSeconds: Int
        /// `ok`, `stale` (the last check failed; the copy serves), `bad_feed` or `error`.
        var state: String
        @Nullable var checkedAt: String?
        @Nullable var changedAt: String?
        @Nullable var bytes: Int?
        @Nullable var events: Int?
        @Nullable var error: ErrorDetail?

        enum CodingKeys: String, CodingKey {
            case name, color, source, auth
            case refreshSeconds = "refresh_seconds"
            case state
            case checkedAt = "checked_at"
            case changedAt = "changed_at"
            case bytes, events, error
        }
    }

    public var name: String { "ics.calendars" }
    public var backend: String { ICSSettings.backend }
    public var defaultTTL: TimeInterval { 30 }
    public var bodySchema: SchemaComponent { ICSSchemas.calendarList }
    public var arguments: [OperationArgument] { [] }

    public func isConfigured(for profile: ProfileConfig) -> Bool { profile.ics != nil }

    public func credentialFingerprint(for profile: ProfileConfig) -> String {
        profile.ics?.fingerprint ?? CredentialFingerprint.none
    }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        [:]
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        guard let settings = context.profile.ics else {
            throw BackendError(
                .notConfigured, backend: backend,
                message: "no calendars are configured for profile \(context.profileName)")
        }
        var states: [State] = []
        var issues: [SectionIssue] = []
        for calendar in settings.calendars {
            var state = State(
                name: calendar.name, color: calendar.color, source: calendar.shownSource, auth: calendar.auth,
                refreshSeconds: Int(calendar.refresh.seconds), state: "ok")
            do {
                let answer = try await feeds.feed(
                    calendar, timeout: settings.timeout.seconds, context: context, limits: limits, workers: workers)
                state.checkedAt = LenientDate.format(answer.copy.checkedAt, in: context.timeZone)
                state.changedAt = LenientDate.format(answer.copy.changedAt, in: context.timeZone)
                state.bytes = answer.copy.byteCount
                switch answer.copy.calendar {
                case .success(let feed):
                    state.events = feed.events.count
                    issues += feed.issues.filter { $0.kind == .limit }.map {
                        SectionIssue(scope: calendar.name, code: "feed_limit", message: "\(calendar.name): \($0)")
                    }
                case .failure(let error):
                    state.state = "bad_feed"
                    state.error = ErrorDetail(code: "bad_feed", message: "\(error)")
                }
                if let failure = answer.failure {
                    state.state = "stale"
                    state.error = failure.detail
                }
            } catch let error as BackendError {
                state.state = "error"
                state.error = error.detail
            } catch {
                state.state = "error"
                state.error = ErrorDetail(
                    code: "upstream_unreachable", message: "\(calendar.name) could not be fetched")
            }
            states.append(state)
        }
        return try OperationOutput(encoding: states, issues: issues)
    }
}
