import Foundation
import Logging
import Model

/// What an operation needs to run for one profile.
public struct OperationContext: Sendable {
    public var profileName: String
    public var profile: ProfileConfig
    /// The request's moment and zone (`RequestClock`): what "today" and "now" mean for it.
    public var clock: RequestClock
    public var http: UpstreamHTTP
    public var sessions: SessionRegistry
    public var logger: Logger

    public init(
        profileName: String, profile: ProfileConfig, clock: RequestClock, http: UpstreamHTTP,
        sessions: SessionRegistry, logger: Logger
    ) {
        self.profileName = profileName
        self.profile = profile
        self.clock = clock
        self.http = http
        self.sessions = sessions
        self.logger = logger
    }

    public var timeZone: TimeZone { clock.timeZone }
    public var now: Date { clock.now }
    public var today: LocalDate { clock.today }

    public var vault: any CredentialVault { sessions.vault }
}

/// An operation's answer: the unified JSON to cache, and what went wrong with parts of it.
public struct OperationOutput: Sendable {
    public var body: Data
    public var issues: [SectionIssue]
    /// Seconds the answer may be kept as fresh at most, when less than the section's TTL: an
    /// answer that shows something the backend is still working on (a meal being parsed) is
    /// asked for again soon. Nil: the TTL.
    public var freshFor: TimeInterval?

    public init(body: Data, issues: [SectionIssue] = [], freshFor: TimeInterval? = nil) {
        self.body = body
        self.issues = issues
        self.freshFor = freshFor
    }

    public init(encoding value: some Encodable, issues: [SectionIssue] = [], freshFor: TimeInterval? = nil) throws {
        self.init(body: try JSONCoding.encode(value), issues: issues, freshFor: freshFor)
    }
}

/// A typed backend operation a route section can name (`eightalls.events`). It declares its
/// arguments (checked when routes load), validates and normalises a call's arguments (so
/// equivalent requests share one cache entry), and fetches the normalised unified JSON.
public protocol BackendOperation: Sendable {
    /// `backend.operation`, as route files name it.
    var name: String { get }
    /// The backend it calls (`eightalls`).
    var backend: String { get }
    /// Freshness when neither the config nor the route overrides it.
    var defaultTTL: TimeInterval { get }
    var arguments: [OperationArgument] { get }
    /// The schema of the body `fetch` returns, a component of /openapi.json with the components
    /// it uses (declared in the backend's home). Required: every section of every route is
    /// documented (`SchemaComponent.anyJSON` says, on purpose, that nothing is known of it).
    var bodySchema: SchemaComponent { get }

    /// Whether `profile` has settings for this operation's backend.
    func isConfigured(for profile: ProfileConfig) -> Bool

    /// A fingerprint of the account this profile uses for the backend, part of every cache key
    /// of the operation beside the fingerprint of the backend's whole settings section
    /// (`ProfileConfig.settingsFingerprint`, which the aggregator adds). The default (`none`)
    /// fits a backend whose account is all in its settings; one whose account can come from
    /// elsewhere (enrollments `daygate connect` kept in the vault) says which it uses.
    func credentialFingerprint(for profile: ProfileConfig) -> String

    /// Checks the arguments together and returns their canonical form (defaults such as today
    /// taken from `clock`, the request's). Throws `ErrorDetail` with code `bad_parameter` for
    /// the client.
    func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue]

    /// Checks normalised arguments against the profile's settings (e.g. a tenant the profile
    /// has no enrollment at), so a client's mistake is a 400, not a failed section.
    /// Throws `ErrorDetail` with code `bad_parameter`.
    func validate(_ arguments: [String: ArgumentValue], for profile: ProfileConfig) throws

    /// Calls the backend; returns the unified JSON body to cache.
    func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput

    /// What one item of this operation's list is across profiles: items of several household
    /// members with the same identity are one thing (an event of a calendar they all subscribe
    /// to), shown once on the household's answer. Never shown itself. Nil: the item is the
    /// member's own (the default).
    func sharedIdentity(of item: JSONValue, for profile: ProfileConfig) -> String?
}

extension BackendOperation {
    public func validate(_ arguments: [String: ArgumentValue], for profile: ProfileConfig) throws {}

    /// The account is all in the settings, which every cache key already carries.
    public func credentialFingerprint(for profile: ProfileConfig) -> String { CredentialFingerprint.none }

    /// Every item is the member's own.
    public func sharedIdentity(of item: JSONValue, for profile: ProfileConfig) -> String? { nil }
}

extension ErrorDetail {
    public static func badParameter(_ message: String) -> ErrorDetail {
        ErrorDetail(code: "bad_parameter", message: message)
    }
}
