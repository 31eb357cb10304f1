import Foundation
import Model
import NIOHTTP1

/// How a backend reads one kind of upstream answer body (`tickedify.daily_plan`,
/// `fitiq.login`), through the very functions its client calls on it, so a fuzzer and the tests
/// can feed each reader bytes no server sent. A thrown error is the backend refusing the answer
/// (fine); a trap or a crash is the bug to find. Every `Backend` lists its readers
/// (`answerReaders`); the harness walks `BackendCatalog.all` and names no backend.
public struct BackendAnswerReader: Sendable {
    /// `backend.answer`: starts with the backend's name.
    public let name: String
    /// Reads `body` as the backend does, in the household's `zone`; refusals are swallowed.
    public let read: @Sendable (_ body: [UInt8], _ zone: TimeZone) -> Void
    /// Answers the server really sent (recorded, or from its specification), kept in the
    /// backend's home: seeds beside the files of `Tests/Fuzz/corpus/answers/<name>/`, which
    /// `BackendAnswerReadersTests` mutates field by field. Every reader has seeds in one place
    /// or the other.
    public let seeds: [[UInt8]]

    /// A reader of the raw body (an answer the client reads as bytes or text).
    public init(
        _ name: String, seeds: [String] = [],
        _ read: @escaping @Sendable (_ body: [UInt8], _ zone: TimeZone) throws -> Void
    ) {
        self.name = name
        self.seeds = seeds.map { Array($0.utf8) }
        self.read = { body, zone in
            do { try read(body, zone) } catch {}
        }
    }

    /// A reader of a JSON answer: the body decoded exactly as the backend clients decode it
    /// (`JSONValue(parsing:)`; a body that does not parse is what the client
    /// refuses), then handed to `read`.
    public static func json(
        _ name: String, seeds: [String] = [],
        _ read: @escaping @Sendable (_ value: JSONValue, _ zone: TimeZone) throws -> Void
    ) -> BackendAnswerReader {
        BackendAnswerReader(name, seeds: seeds) { body, zone in
            try read(JSONValue(parsing: Data(body)), zone)
        }
    }

    /// A refused call's body (a 4xx or 5xx answer of `backend`), read as `UpstreamHTTP` reads
    /// every one: its secrets redacted, then its message taken into the section's error.
    public static func upstreamError(_ backend: String, seeds: [String] = []) -> BackendAnswerReader {
        BackendAnswerReader("\(backend).error", seeds: seeds) { body, _ in
            let redacted = SecretRedactor().redact(Data(body))
            for status in [422, 503] {
                let response = UpstreamHTTP.Response(status: status, headers: HTTPHeaders(), body: redacted)
                _ = UpstreamHTTP.error(for: response, backend: backend)
            }
        }
    }

    /// What happens to an operation's answer once it is cached: every section of `backend`'s
    /// summary part and calendar feed part that names `operation` reads `output`, for the
    /// reference day (the summary) and the week from it (the feed), in `zone`.
    public static func cached(
        _ output: OperationOutput, of operation: String, by backend: some Backend, zone: TimeZone
    ) {
        let day = referenceDay
        if let part = backend.summaryPart {
            let names = part.sections.filter { $0.operation == operation }.map(\.name)
            if !names.isEmpty {
                let bodies = Dictionary(names.map { ($0, output.body) }, uniquingKeysWith: { first, _ in first })
                let values = part.summarize(SummaryInput(bodies: bodies, date: day, zone: zone, now: referenceNow))
                _ = try? JSONCoding.encode(values.values)
            }
        }
        if let part = backend.calendarFeedPart {
            let window = CalendarFeedWindow(from: day, to: day.adding(days: 6), today: day, zone: zone)
            let names = part.sections(for: window).filter { $0.operation == operation }.map(\.name)
            if !names.isEmpty {
                let bodies = Dictionary(names.map { ($0, output.body) }, uniquingKeysWith: { first, _ in first })
                _ = part.contribution(CalendarFeedInput(bodies: bodies, window: window))
            }
        }
    }

    /// The moment the readers take as "now" (the simulators' seeded Monday, 12:00 UTC), so a
    /// reader gives the same result for the same bytes whenever it runs.
    public static let referenceNow = Date(timeIntervalSince1970: 1_795_435_200)

    /// The day the readers ask about (the simulators' seeded Monday).
    public static let referenceDay = LocalDate(year: 2026, month: 11, day: 23)
}
