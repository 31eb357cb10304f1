import Foundation

/// The clock a date-time is read on: a system (IANA) zone, or a VTIMEZONE defined in the feed.
/// Turning a wall-clock time into an instant follows RFC 5545 §3.3.5: a time skipped by a
/// DST change is read with the offset from before the gap (02:30 → 03:30), and a time that
/// happens twice means the first of the two.
public enum ICSZone: Sendable, Equatable {
    case system(TimeZone)
    case defined(ICSVTimeZone)

    /// UTC.
    public static let utc = ICSZone.system(TimeZone(identifier: "UTC")!)

    /// The zone's name (IANA identifier or the feed's TZID).
    public var identifier: String {
        switch self {
        case .system(let zone): return zone.identifier
        case .defined(let definition): return definition.tzid
        }
    }

    /// Seconds east of UTC at `instant`.
    public func offset(at instant: Date) -> Int {
        switch self {
        case .system(let zone): return zone.secondsFromGMT(for: instant)
        case .defined(let definition): return definition.offset(at: instant)
        }
    }

    /// The wall clock showing at `instant`.
    public func wall(at instant: Date) -> ICSLocalDateTime {
        ICSLocalDateTime(utc: instant.addingTimeInterval(TimeInterval(offset(at: instant))))
    }

    /// The instant a wall-clock time names in this zone.
    public func instant(of wall: ICSLocalDateTime) -> Date {
        let local = wall.wallSeconds
        let before = offset(at: Date(timeIntervalSince1970: TimeInterval(local - 86_400)))
        let after = offset(at: Date(timeIntervalSince1970: TimeInterval(local + 86_400)))
        var valid: [Int] = []
        for candidate in Set([before, after]) {
            let utc = local - candidate
            if offset(at: Date(timeIntervalSince1970: TimeInterval(utc))) == candidate { valid.append(utc) }
        }
        if let earliest = valid.min() { return Date(timeIntervalSince1970: TimeInterval(earliest)) }
        // In a gap: read with the offset in force before it.
        return Date(timeIntervalSince1970: TimeInterval(local - before))
    }
}
