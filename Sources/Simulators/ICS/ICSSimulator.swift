import Foundation
import Logging
import Model

/// A simulator of calendar-subscription servers: the plain web servers (and Google's, Outlook's and
/// iCloud's publishing endpoints) that serve iCalendar (RFC 5545) feeds a household subscribes to.
///
/// Served on loopback, four demo feeds (see ``demoCalendars``), each written the way its real-world
/// producer writes it (CRLF line endings, lines folded at 75 octets, TEXT escaping):
/// - `GET /calendars/school.ics`: "Basisschool De Regenboog", `Europe/Amsterdam` with a `VTIMEZONE`,
///   a weekly gym class (`RRULE` `BYDAY=TU,TH` until the end of the school year) with `EXDATE`s and a
///   `RECURRENCE-ID` override, all-day study days and a holiday week, a `STATUS:CANCELLED` event and
///   a camp night across midnight. Public.
/// - `GET /calendars/holidays.ics`: Google's "Nederlandse feestdagen", all-day `VALUE=DATE` events
///   for the seed year and the next (Easter-based ones computed). Public.
/// - `GET /calendars/club.ics`: an Outlook 16.0 match schedule in `W. Europe Standard Time`, with
///   escaped commas in `LOCATION`. HTTP Basic (``demoUser`` / ``demoPassword``).
/// - `GET /calendars/private-<token>/basic.ics` (``demoSecretPath``): a Google "secret address" of a
///   work calendar, UTC (`Z`) events and a `FREQ=MONTHLY;BYDAY=-1FR` meeting. Bearer ``demoToken``.
///
/// Every feed answers `text/calendar; charset=utf-8` with a strong `ETag` (a hash of the body) and
/// `Last-Modified`; `If-None-Match` (weak comparison, `*` too) or, without it, an `If-Modified-Since`
/// (IMF-fixdate) not older than `Last-Modified` gives `304 Not Modified` with no body. `HEAD` answers
/// the same headers without a body. A missing or wrong credential gives 401 with `WWW-Authenticate`
/// (checked before the conditional headers); another method 405 (`Allow: GET, HEAD`); any other path
/// 404 `Not Found` (plain text), a wrong secret token included.
///
/// Simulator controls on the same port: the shared `/_sim/faults` and `/_sim/stats` (an injected
/// `error_status` answers plain text `simulated failure`), plus
/// - `GET /_sim/calendars`: every feed (name, path, auth, etag, last_modified, bytes);
///   `GET /_sim/calendars/<name>`: one of them;
/// - `POST|PUT /_sim/calendars/<name>` with a raw body: serve that body (verbatim, not validated, so
///   a broken feed is easy) from now on, with a new `ETag` and `Last-Modified`; a deleted demo
///   calendar comes back at its own path and auth; a new name is served public at
///   `/calendars/<name>.ics`;
/// - `DELETE /_sim/calendars/<name>`: the feed answers 404 until posted again;
/// - `GET /_sim/calls`: `{"calls":{"GET /calendars/school.ics":3},"not_modified":{...},
///   "statuses":{"GET /calendars/school.ics":{"200":2,"304":1}},"total":3}`;
/// - `GET|POST /_sim/options` (`{"ics_malformed":true}`): every feed is served cut off halfway
///   (no `END:VCALENDAR`, a line without a colon), with the ETag of that broken body;
/// - `POST /_sim/reset`: reload the seeded feeds, forget the counts, `ics_malformed` off.
///
/// Not simulated: CalDAV, `Range`, compression, redirects (`webcal://` is the client's business).
public struct ICSSimulator: Sendable {
    /// User of the Basic-auth demo calendar (`club`).
    public static let demoUser = "ouders"
    /// Password of the Basic-auth demo calendar (`club`).
    public static let demoPassword = "amstelland-jo11"
    /// Bearer token of the secret-address demo calendar (`work`).
    public static let demoToken = "ics-demo-token-7c1f9a4e2b6d"
    /// The random-looking part of the `work` calendar's secret address.
    public static let demoSecretToken = "private-9f3c1e7a5b2d48c6a0e4f7b19d3c8a52"
    /// The `work` calendar's path (Google's "secret address in iCal format" shape).
    public static let demoSecretPath = "/calendars/\(demoSecretToken)/basic.ics"
    /// A ready broken feed for `POST /_sim/calendars/<name>`: no `END:VEVENT` or `END:VCALENDAR`, a
    /// truncated `DTSTART`, a line without a colon. (`{"ics_malformed":true}` on `/_sim/options`
    /// breaks every feed in the same ways.)
    public static let malformedFeed =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Broken//EN\r\nBEGIN:VEVENT\r\nUID:broken-1\r\n"
        + "DTSTART;TZID=Europe/Amsterdam:2026113\r\nSUMMARY Geen dubbele punt\r\n"

    /// How a feed is protected.
    public enum Auth: Sendable, Equatable {
        /// Public, no credentials (a secret address keeps its secret in the path). Not called
        /// `none`, which would read as `Optional.none` next to an optional.
        case anonymous
        /// HTTP Basic with this user and password.
        case basic(user: String, password: String)
        /// `Authorization: Bearer <token>`.
        case bearer(token: String)

        /// "none", "basic" or "bearer".
        public var scheme: String {
            switch self {
            case .anonymous: "none"
            case .basic: "basic"
            case .bearer: "bearer"
            }
        }
    }

    /// One demo feed, for building the demo configuration.
    public struct DemoCalendar: Sendable, Equatable {
        /// The name used by `/_sim/calendars/<name>`.
        public let name: String
        /// The feed's `X-WR-CALNAME`.
        public let title: String
        /// The path on the simulator (append to ``RunningSimulator/baseURL``).
        public let path: String
        /// A colour suggested for the dashboard (`#rrggbb`).
        public let colour: String
        public let auth: Auth
    }

    /// The demo feeds, in the order a dashboard lists them.
    public static let demoCalendars: [DemoCalendar] = [
        DemoCalendar(
            name: "school", title: "Basisschool De Regenboog", path: "/calendars/school.ics", colour: "#f59e0b",
            auth: .anonymous),
        DemoCalendar(
            name: "holidays", title: "Nederlandse feestdagen", path: "/calendars/holidays.ics", colour: "#dc2626",
            auth: .anonymous),
        DemoCalendar(
            name: "club", title: "VV Amstelland JO11-2", path: "/calendars/club.ics", colour: "#16a34a",
            auth: .basic(user: demoUser, password: demoPassword)),
        DemoCalendar(
            name: "work", title: "Werk", path: demoSecretPath, colour: "#2563eb", auth: .bearer(token: demoToken)),
    ]

    /// The demo calendar called `name`, or nil.
    public static func demoCalendar(_ name: String) -> DemoCalendar? {
        demoCalendars.first { $0.name == name }
    }

    public struct Options: Sendable {
        /// `YYYY-MM-DD`: the household's local "today"; the feeds have events on it and the week after.
        public var seedDay: String
        /// The household's zone: the `work` feed's times are local working hours in it, written in UTC.
        /// (The school and the club write Amsterdam wall times, the holidays are dates.)
        public var timeZone: TimeZone

        /// - Parameter seedDay: defaults to today in `timeZone`.
        public init(seedDay: String? = nil, timeZone: TimeZone = .current) {
            self.timeZone = timeZone
            self.seedDay = seedDay ?? LocalDate.today(in: timeZone).description
        }
    }

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
        let store = try ICSStore(options: options)
        let control = SimulatorControl()
        return try await SimulatorServer.start(
            kind: .ics,
            backend: ICSBackend(store: store, control: control),
            control: control,
            host: host,
            port: port,
            logger: logger,
            serverName: nil
        )
    }
}
