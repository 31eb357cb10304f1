import Foundation
import Model
import Synchronization

/// One served feed.
struct ICSFeed: Sendable, Equatable {
    var name: String
    var path: String
    var auth: ICSSimulator.Auth
    var body: String
    /// Seconds since 1970 of the last change.
    var lastModified: Int64

    /// A strong validator: the first 128 bits of the body's SHA-256, quoted.
    static func etag(_ body: String) -> String {
        "\"" + PRSNLSHA256.hex(body).prefix(32) + "\""
    }

    /// The body as `/_sim/options` `{"ics_malformed":true}` serves it: cut off at the first line
    /// past the middle, then a truncated `DTSTART` and a line without a colon; no `END:VCALENDAR`.
    static func malformed(_ body: String) -> String {
        let lines = body.components(separatedBy: "\r\n")
        let kept = lines.prefix(max(1, lines.count / 2))
        return kept.joined(separator: "\r\n") + "\r\nDTSTART:2026113\r\nSUMMARY Afgebroken\r\n"
    }

    var json: JSONValue {
        .object([
            "name": .string(name), "path": .string(path), "auth": .string(auth.scheme),
            "etag": .string(Self.etag(body)), "last_modified": .string(Civil.httpDate(lastModified)),
            "bytes": .int(body.utf8.count),
        ])
    }
}

/// The feeds, their change times and the per-route answer counts, safe to use from any task.
final class ICSStore: Sendable {
    private struct State {
        /// By name.
        var feeds: [String: ICSFeed] = [:]
        /// The last change per name, deleted feeds included (a feed's next change is always later).
        var changes: [String: Int64] = [:]
        var malformed = false
        /// Answers per `"METHOD /path"` and status (backend answers only, not injected faults).
        var statuses: [String: [Int: Int]] = [:]
    }

    private let state = Mutex(State())
    let options: ICSSimulator.Options

    init(options: ICSSimulator.Options) throws {
        guard Civil.parseDay(options.seedDay) != nil else { throw SimulatorError.invalidSeedDay(options.seedDay) }
        self.options = options
        reset()
    }

    /// Reloads the seeded feeds, forgets the counts and turns `ics_malformed` off.
    func reset() {
        let seeded = ICSSeed.feeds(seedDay: options.seedDay, timeZone: options.timeZone)
        state.withLock { s in
            s = State()
            for feed in seeded {
                guard let demo = ICSSimulator.demoCalendar(feed.name) else { continue }
                s.feeds[feed.name] = ICSFeed(
                    name: feed.name, path: demo.path, auth: demo.auth, body: feed.body, lastModified: feed.lastModified)
                s.changes[feed.name] = feed.lastModified
            }
        }
    }

    /// The feed served at `path` (as served: malformed when that option is on).
    func feed(atPath path: String) -> ICSFeed? {
        state.withLock { s in
            guard var feed = s.feeds.values.first(where: { $0.path == path }) else { return nil }
            if s.malformed { feed.body = ICSFeed.malformed(feed.body) }
            return feed
        }
    }

    /// The feed called `name` (its stored body, even with `ics_malformed` on).
    func feed(named name: String) -> ICSFeed? {
        state.withLock { $0.feeds[name] }
    }

    var feeds: [ICSFeed] {
        state.withLock { s in s.feeds.values.sorted { $0.name < $1.name } }
    }

    var malformed: Bool {
        get { state.withLock { $0.malformed } }
        set { state.withLock { $0.malformed = newValue } }
    }

    /// A name `/_sim/calendars/<name>` accepts: 1–64 of `a-z 0-9 - _`.
    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }

    /// The next change time: now, but always after the previous change (so `If-Modified-Since`
    /// sees every change, even two in one second).
    private static func nextChange(_ s: State, _ name: String, now: Date) -> Int64 {
        max(Int64(now.timeIntervalSince1970.rounded(.down)), (s.changes[name] ?? .min / 2) + 1)
    }

    /// Serves `body` as `name` from now on: at its current path and auth, a demo calendar's own
    /// ones, or public at `/calendars/<name>.ics`.
    func replace(_ name: String, body: String, now: Date = Date()) -> ICSFeed {
        state.withLock { s in
            let changed = Self.nextChange(s, name, now: now)
            let demo = ICSSimulator.demoCalendar(name)
            var feed =
                s.feeds[name]
                ?? ICSFeed(
                    name: name, path: demo?.path ?? "/calendars/\(name).ics", auth: demo?.auth ?? .anonymous, body: "",
                    lastModified: changed)
            feed.body = body
            feed.lastModified = changed
            s.feeds[name] = feed
            s.changes[name] = changed
            return feed
        }
    }

    /// Stops serving `name`; false when it was not served.
    func delete(_ name: String, now: Date = Date()) -> Bool {
        state.withLock { s in
            guard s.feeds.removeValue(forKey: name) != nil else { return false }
            s.changes[name] = Self.nextChange(s, name, now: now)
            return true
        }
    }

    func record(_ key: String, status: Int) {
        state.withLock { $0.statuses[key, default: [:]][status, default: 0] += 1 }
    }

    var statuses: [String: [Int: Int]] {
        state.withLock { $0.statuses }
    }
}
