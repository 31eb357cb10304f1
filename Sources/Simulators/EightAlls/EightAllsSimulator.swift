import Foundation
import Logging
import Model

/// A simulator of the 8alls calendar API (FastAPI + SQLAlchemy), see docs/backends/eightalls.md.
/// The real server is the truth: the recordings of it in `Tests/Fixtures/recordings/eightalls`
/// (the seed POSTs and 82 exchanges, WebSocket scenarios included) are replayed against this
/// simulator by `EightAllsConformanceTests`; only 082 (uvicorn's keepalive timeout, 40 s of wall
/// clock) is skipped.
///
/// Served on loopback, everything under `/api` plus `GET /` and `GET /health`:
/// `GET /api/events?start_date&end_date&event_type&status`, `GET /api/events/{id}`,
/// `GET /api/events/date/{YYYY-MM-DD}`, `POST /api/events`, `PUT /api/events/{id}`,
/// `DELETE /api/events/{id}`, with FastAPI's error shapes (422 `detail` arrays from pydantic,
/// `{"detail":"..."}` otherwise), Starlette's 307 on a trailing slash and its query parsing (an
/// unencoded `+` is a space).
///
/// Simulator controls on the same port: the shared `/_sim/faults` and `/_sim/stats` (see
/// ``SimulatorControl``), plus `GET|POST /_sim/options` (`{"date_style":"zulu"|"naive"}`) and
/// `POST /_sim/reset` (drop every change and reload the seeded week).
///
/// WebSocket `/ws` (no auth): the text `ping` gets the plain text `pong`; POST, PUT and DELETE of
/// `/api/events` broadcast `{"type","data","timestamp"}`, with the upstream bug reproduced: the
/// `event_created` / `event_updated` broadcasts fail to serialize, and every socket connected at
/// that moment is dropped from the broadcast list without being closed, so it never receives
/// anything again; only `event_deleted` (`{"id":…}`) reaches sockets connected since the last create
/// or update (see ``EightAllsConnectionManager``). A binary frame leaves the socket open and
/// silent (no `pong` any more); a client's close is answered with 1000. Upgrades are counted as
/// `GET /ws`.
///
/// Not simulated: tasks, search, daily notes, therapy-companion and `/docs`/`/openapi.json`;
/// those paths answer 404.
public struct EightAllsSimulator: Sendable {
    /// How datetimes come out, i.e. which database the real server runs on.
    public enum DateStyle: String, Sendable, CaseIterable {
        /// PostgreSQL: UTC with a `Z`, fraction only when non-zero (`2026-11-23T09:00:00Z`).
        case zulu
        /// The default SQLite: naive, no zone (`2026-11-23T09:00:00`); an input offset is dropped.
        case naive
    }

    public struct Options: Sendable {
        /// Output datetime style; switchable at runtime with `POST /_sim/options`.
        public var dateStyle: DateStyle
        /// `YYYY-MM-DD`: the household's local "today" of the seeded week (seedDay-3 … seedDay+3).
        public var seedDay: String
        /// The household's zone; seeded times are local times in it (stored and served as UTC).
        public var timeZone: TimeZone

        /// - Parameter seedDay: defaults to today in `timeZone`.
        public init(dateStyle: DateStyle = .zulu, seedDay: String? = nil, timeZone: TimeZone = .current) {
            self.dateStyle = dateStyle
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
        try await start(store: EightAllsStore(options: options), host: host, port: port, logger: logger)
    }

    /// Starts the simulator on `store` (made from these options; a test may have changed it first).
    func start(store: EightAllsStore, host: String = "127.0.0.1", port: Int = 0, logger: Logger? = nil)
        async throws -> RunningSimulator
    {
        try await SimulatorServer.start(
            kind: .eightalls,
            backend: EightAllsBackend(store: store),
            control: SimulatorControl(),
            host: host,
            port: port,
            logger: logger
        )
    }
}
