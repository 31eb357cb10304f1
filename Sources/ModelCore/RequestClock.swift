import Foundation

/// "Now" for one request: the moment it is answered, in the household's zone, and so the local
/// day that is "today" — one reading of the gateway's clock that every part of the answer uses
/// (defaults such as `date = today`, what counts as past or future, cache windows), instead of
/// each reading its own.
public struct RequestClock: Sendable, Hashable {
    public var now: Date
    public var timeZone: TimeZone

    public init(now: Date, timeZone: TimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The local day of `now`.
    public var today: LocalDate { LocalDate.today(in: timeZone, now: now) }
}
