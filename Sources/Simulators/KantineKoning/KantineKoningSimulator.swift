import Foundation
import Logging
import Model

/// A contract-faithful simulator of the Kantine Koning mobile API (Elixir/Phoenix, multi-tenant,
/// one opaque Bearer token per enrollment), see docs/backends/kantinekoning.md.
///
/// Simulated, all under `/api/mobile/v1` (the API sits at the server root, `apiPath` is ""):
/// - `GET /diensten?tenant=<slug>&future_days=N[&past_days=N]` → `{"diensten":[Dienst]}`: the
///   token's tenant, filtered by the token's team codes (a code or a team id both match), window
///   `start_tijd` in [now − past_days, now + future_days] (defaults 365 and 60; an unparsable value
///   falls back to the default). Without `tenant` the token's own tenant is used (the deprecated
///   `fetchAllDiensten`); an unknown tenant is 404 `tenant_not_found`; another tenant than the
///   token's answers an empty list (the server filters by the token's teams; the contract lists
///   no refusal for it). Open diensten (`team:null`) are not in this list (no team code matches
///   them) unless ``Options/openDienstenInList`` is set.
/// - `GET /diensten/available[?current_team_code=X]` (managers; members get 403
///   `team_access_denied`): future open diensten and diensten offered for transfer by other teams.
/// - `GET /diensten/{id}?tenant=<slug>` → `{"dienst":Dienst}`.
/// - `POST /diensten/{id}/volunteer?tenant=<slug>` `{"naam":"Jan"}` and
///   `DELETE /diensten/{id}/volunteer?tenant=<slug>&naam=<name>` → `{"dienst":Dienst}` with
///   `aanmeldingen`, `aanmeldingen_count` and `updated_at` changed. Checks in order: token (401),
///   tenant (404 `tenant_not_found`; another club's dienst: 403 `team_access_denied`), dienst
///   exists in the tenant (404 `dienst_not_found`), manager of the dienst's team (403
///   `team_access_denied`; members and open diensten always), name present after trimming (422
///   `invalid_name`); removing an absent name is 404 `volunteer_not_found`. The 15-character
///   limit, the duplicate check and "future diensten only" are the app's own rules (its UI), not
///   refusals the contract lists: the server stores what it is sent. `naam` may also come from
///   the query string (Phoenix merges query and body params).
/// - `GET /leaderboard?tenant=<slug>&period=week|month|season[&team_id=X]` (Bearer optional; a
///   bad token is still a 401): top 10 plus the highlighted team, points and hours computed from
///   the seeded diensten (season adds a seeded base per team); an unknown period is 400
///   `invalid_period`.
/// - `GET /tenants`, `GET /enrollments/status` (Bearer), `GET /teams/search?tenant&q` and
///   `GET /tenants/search?q` (no auth).
///
/// Auth errors are 401 with `{"error":"invalid_token"}` (unknown token),
/// `{"error":"device_not_found"}` (device enrollment deleted),
/// `{"error":"token_revoked","message":…,"reason":"admin_revoked"|"season_ended"|…}` and, with no
/// `Authorization: Bearer` at all, `{"error":"unauthorized","message":…}`. Other errors are
/// `{"error":<code>,"message":<Dutch text>}`; unknown routes (any wrong method too) are Phoenix's
/// 404 `{"errors":{"detail":"Not Found"}}`, an unparsable JSON body is 400
/// `{"errors":{"detail":"Bad Request"}}`. Bodies are `application/json; charset=utf-8` with keys in
/// alphabetical order (Jason encoding small Elixir maps). `start_tijd`/`eind_tijd` are
/// `utc_datetime` (`2026-11-23T18:30:00Z`), `updated_at` is `utc_datetime_usec` (always six
/// fractional digits). One dienst has one `updated_at`, whichever enrollment sees it.
///
/// "Now" is the real clock shifted by whole days so that today in ``Options/timeZone`` is
/// ``Options/seedDay`` (or ``Options/now`` when fixed, or `POST /_sim/clock`).
///
/// Simulator controls on the same port, besides the shared `/_sim/faults` and `/_sim/stats`
/// (injected errors use Phoenix's `{"errors":{"detail":…}}` shape):
/// - `POST /_sim/tokens/revoke {"token":"…","reason":"…"}` (reason defaults to `admin_revoked`)
/// - `POST /_sim/tokens/forget {"token":"…"}`: the device enrollment is deleted → `device_not_found`
/// - `POST /_sim/tenants/{slug}/season-end`: every token of that tenant → `token_revoked`/`season_ended`
/// - `GET /_sim/enrollments`: tokens and their state
/// - `GET /_sim/mail`: the enrollment links sent (`to`, `tenant`, `team_codes`, `token`, `link`)
/// - `GET|POST /_sim/clock {"now":"2026-11-23T12:00:00Z"|null}`
/// - `GET|POST /_sim/writes/fail {"status":500,"count":1,"after_write":false}`: the next `count`
///   volunteer writes (after the token and tenant checks) answer `status` in Phoenix's
///   `{"errors":{"detail":…}}` shape; with `after_write` the change is stored first and only the
///   answer is lost (a client that retries then meets its own write). `{"status":null}` clears it.
/// - `POST /_sim/reset`: reload the seeded diensten and the configured token and season states
///   (and clear a write failure)
///
/// Enrollment (what `daygate connect kantinekoning` calls), see `KantineKoningBackend+Enrollment.swift`:
/// - `POST /enrollments/request {"email","tenant_slug","team_codes","platform"}`: "sends" a link
///   (kept for `GET /_sim/mail`) to a team manager of every named team; with `team_codes: []`
///   the old flow answers the teams the address manages, `{"teams":[…]}`.
/// - `POST /enrollments/register {"enrollment_token","hardware_identifier",…}`: an e-mailed token
///   (manager, once, within a day) or the app's self-made member token (base64 of unsigned JSON,
///   `purpose:"device-enroll"`, `exp`, `jti` used once) → `{"tenant_slug","tenant_name",
///   "team_codes","email","role","api_token","teams"}`.
/// - `POST /enrollments/remove-teams` (Bearer) `{"team_codes":[team ids]}`,
///   `DELETE /enrollments/tenant` (Bearer) `{"tenant_slug"}`, `DELETE /enrollments/all` (Bearer):
///   the token's teams, or the device's enrollments at the club (or everywhere), are removed;
///   their tokens then answer `device_not_found`.
/// - Errors `{"error":code,"message":…}`: `invalid_email` (422), `tenant_not_found` (404),
///   `invalid_team_codes` (422), `team_manager_not_found` (404), `enrollment_closed` (403, with
///   `enrollment_allowed:false`, season ended), `enrollment_expired` (410),
///   `invalid_or_expired_token` (422). The app reads only the codes; these statuses are the
///   simulator's choice (docs/connect.md).
///
/// Not simulated (404 like any unknown route): sync, e-mail preferences, APNs registration,
/// claim, transfer-offer, the global leaderboard, banners, season summaries and the CTA; the gateway
/// never calls them.
public struct KantineKoningSimulator: Sendable {
    /// An enrollment's role.
    public enum Role: String, Sendable, CaseIterable {
        case manager
        case member
    }

    /// A team of a club.
    public struct Team: Sendable, Equatable {
        /// E.g. `JO11-3`.
        public var code: String
        /// Display name, e.g. `JO11-3` or `Heren 1`.
        public var naam: String
        /// The team's UUID; nil derives a stable one from the tenant slug and code.
        public var id: String?
        /// The e-mail addresses of its team managers (`team_managers`), who may enroll by e-mail.
        public var managers: [String]

        public init(code: String, naam: String? = nil, id: String? = nil, managers: [String] = []) {
            self.code = code
            self.naam = naam ?? code
            self.id = id
            self.managers = managers
        }
    }

    /// A club (tenant).
    public struct Tenant: Sendable, Equatable {
        public var slug: String
        public var name: String
        public var teams: [Team]
        /// When true every token of this tenant answers `token_revoked` / `season_ended`.
        public var seasonEnded: Bool
        public var leaderboardOptOut: Bool
        public var clubLogoURL: String?

        public init(
            slug: String, name: String, teams: [Team], seasonEnded: Bool = false, leaderboardOptOut: Bool = false,
            clubLogoURL: String? = nil
        ) {
            self.slug = slug
            self.name = name
            self.teams = teams
            self.seasonEnded = seasonEnded
            self.leaderboardOptOut = leaderboardOptOut
            self.clubLogoURL = clubLogoURL
        }
    }

    /// One device enrollment: a tenant, a role, a set of teams and its own opaque token.
    public struct Enrollment: Sendable, Equatable {
        /// The tenant slug.
        public var tenant: String
        public var role: Role
        /// The opaque `api_token`, sent as `Authorization: Bearer <token>`.
        public var token: String
        /// A human label for configs and logs.
        public var label: String
        /// Team codes (or team ids) in the token; diensten are filtered by them.
        public var teamCodes: [String]
        /// nil = active; otherwise the `reason` of its `token_revoked` answer.
        public var revokedReason: String?
        public var email: String?

        public init(
            tenant: String, role: Role, token: String, label: String, teamCodes: [String], revokedReason: String? = nil,
            email: String? = nil
        ) {
            self.tenant = tenant
            self.role = role
            self.token = token
            self.label = label
            self.teamCodes = teamCodes
            self.revokedReason = revokedReason
            self.email = email
        }
    }

    public struct Options: Sendable {
        /// `YYYY-MM-DD`: the clubs' local "today"; diensten are seeded over seedDay-14 … seedDay+21.
        public var seedDay: String
        /// The clubs' zone; seeded times are local times in it (served as UTC).
        public var timeZone: TimeZone
        public var tenants: [Tenant]
        public var enrollments: [Enrollment]
        /// A fixed "now"; nil = the real clock shifted so that today in `timeZone` is `seedDay`.
        public var now: Date?
        /// Also list open diensten (`team:null`) of the token's tenant in `GET /diensten` (the real
        /// server filters them out; this lets a client test `team:null`).
        public var openDienstenInList: Bool

        /// - Parameter seedDay: defaults to today in `timeZone`.
        public init(
            seedDay: String? = nil,
            timeZone: TimeZone = .current,
            tenants: [Tenant] = KantineKoningSimulator.demoTenants,
            enrollments: [Enrollment] = KantineKoningSimulator.defaultEnrollments,
            now: Date? = nil,
            openDienstenInList: Bool = false
        ) {
            self.timeZone = timeZone
            self.seedDay = seedDay ?? LocalDate.today(in: timeZone).description
            self.tenants = tenants
            self.enrollments = enrollments
            self.now = now
            self.openDienstenInList = openDienstenInList
        }
    }

    // MARK: - Demo data

    /// The team manager of JO11-3 and JO11-5 at club A (the e-mail enrollment flow).
    public static let demoManagerEmail = "manager@example.com"

    /// Club A.
    public static let demoTenantA = "vvwilhelmus"
    /// Club B.
    public static let demoTenantB = "agovv"
    /// A club whose season has ended (only ``seasonEndedToken`` is enrolled there).
    public static let demoTenantSeasonEnded = "sc-emma"

    /// VV Wilhelmus (club A), AGOVV (club B, `leaderboard_opt_out: true`) and SC Emma (season ended).
    public static let demoTenants: [Tenant] = [
        Tenant(
            slug: demoTenantA, name: "VV Wilhelmus",
            teams: [
                Team(code: "JO11-3", managers: [demoManagerEmail]), Team(code: "JO11-5", managers: [demoManagerEmail]),
                Team(code: "JO13-1"), Team(code: "MO15-2"),
                Team(code: "H1", naam: "Heren 1"), Team(code: "VR2", naam: "Vrouwen 2"),
            ]
        ),
        Tenant(
            slug: demoTenantB, name: "AGOVV",
            teams: [
                Team(code: "JO10-5"), Team(code: "JO12-2"), Team(code: "MO13-1"), Team(code: "H3", naam: "Heren 3"),
            ],
            leaderboardOptOut: true, clubLogoURL: "https://kantinekoning.com/uploads/logos/agovv.png"
        ),
        Tenant(
            slug: demoTenantSeasonEnded, name: "SC Emma", teams: [Team(code: "JO9-1"), Team(code: "JO9-2")],
            seasonEnded: true
        ),
    ]

    /// Manager of JO11-3 and JO11-5 at club A.
    public static let demoManagerToken =
        "SFMyNTY.ZzJnRGRBQUFBQVZ3aWxoZWxtdXMtbWFuYWdlcg.9HWwo20Yli4V9KaxjdN3jUIbKuEu2ugyYAblDYEEYy4"
    /// Member of JO13-1 and JO11-5 at club A (JO11-5 overlaps the manager enrollment).
    public static let demoMemberToken =
        "SFMyNTY.ZzJnRGRBQUFBQVZ3aWxoZWxtdXMtbWVtYmVy.dHaxvm3pfmtJanb_9NwQ8fBbMTbwxb_QUEqlqV23c24"
    /// Member of JO10-5 at club B.
    public static let demoClubBMemberToken =
        "SFMyNTY.ZzJnRGRBQUFBQVZhZ292di1tZW1iZXI.zZH5oZTTW3dkQR7fqDnq62EMWx3ALvE4aY-KR2k6laY"
    /// An enrollment at club A revoked by an admin: 401 `token_revoked`, `reason:"admin_revoked"`.
    public static let revokedToken =
        "SFMyNTY.ZzJnRGRBQUFBQVZ3aWxoZWxtdXMtcmV2b2tlZA.R6AfP073q1r5ebqv0gDHxMT7Yh1LHs_9KVZ2eJsW73U"
    /// An enrollment at SC Emma, whose season ended: 401 `token_revoked`, `reason:"season_ended"`.
    public static let seasonEndedToken =
        "SFMyNTY.ZzJnRGRBQUFBQVZlbW1hLXNlYXNvbi1lbmRlZA.p0bXOOQA3WG6gjXqWx0_L8pZfSpDZtoFLh0ww5J5wek"

    /// The three working demo enrollments: manager and member at club A, member at club B.
    public static let demoEnrollments: [Enrollment] = [
        Enrollment(
            tenant: demoTenantA, role: .manager, token: demoManagerToken,
            label: "VV Wilhelmus (manager JO11-3, JO11-5)",
            teamCodes: ["JO11-3", "JO11-5"], email: "manager@example.com"
        ),
        Enrollment(
            tenant: demoTenantA, role: .member, token: demoMemberToken, label: "VV Wilhelmus (lid JO13-1, JO11-5)",
            teamCodes: ["JO13-1", "JO11-5"]
        ),
        Enrollment(
            tenant: demoTenantB, role: .member, token: demoClubBMemberToken, label: "AGOVV (lid JO10-5)",
            teamCodes: ["JO10-5"]
        ),
    ]

    /// The enrollment behind ``revokedToken``.
    public static let revokedEnrollment = Enrollment(
        tenant: demoTenantA, role: .member, token: revokedToken, label: "VV Wilhelmus (lid MO15-2, ingetrokken)",
        teamCodes: ["MO15-2"], revokedReason: "admin_revoked"
    )

    /// The enrollment behind ``seasonEndedToken``.
    public static let seasonEndedEnrollment = Enrollment(
        tenant: demoTenantSeasonEnded, role: .member, token: seasonEndedToken,
        label: "SC Emma (lid JO9-1, seizoen voorbij)",
        teamCodes: ["JO9-1"]
    )

    /// What ``Options`` uses by default: ``demoEnrollments`` plus the revoked and season-ended ones.
    public static let defaultEnrollments: [Enrollment] = demoEnrollments + [revokedEnrollment, seasonEndedEnrollment]

    // MARK: -

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Starts the simulator and returns once it is listening.
    /// - Parameters:
    ///   - host: 127.0.0.1, ::1 or localhost; anything else throws ``SimulatorError/nonLoopbackHost(_:)``.
    ///   - port: 0 picks a free port (read it from ``RunningSimulator/port``).
    ///   - logger: defaults to a logger at `.warning`.
    public func start(host: String = "127.0.0.1", port: Int = 0, logger: Logger? = nil) async throws -> RunningSimulator
    {
        let store = try KantineKoningStore(options: options)
        return try await SimulatorServer.start(
            kind: .kantinekoning,
            backend: KantineKoningBackend(store: store),
            control: SimulatorControl(),
            host: host,
            port: port,
            logger: logger
        )
    }
}
