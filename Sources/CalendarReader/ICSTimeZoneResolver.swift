import Foundation

/// Decides which clock a `TZID` names, in this order:
/// 1. an IANA identifier (`Europe/Amsterdam`), also behind a vendor prefix
///    (`/mozilla.org/20070129_1/Europe/Berlin`, `/freeassociation.sourceforge.net/Tzfile/Europe/London`);
/// 2. a `VTIMEZONE` of the feed with that TZID (its own STANDARD/DAYLIGHT rules);
/// 3. a Windows zone name as Outlook writes it (`W. Europe Standard Time`);
/// 4. a fixed offset spelled `GMT+01:00`, `UTC-0500` or `(UTC+01:00) Amsterdam, Berlin, …`;
/// otherwise the household zone, with a note saying so.
///
/// Floating times (no TZID, no `Z`) are read on ``floating``: the zone the feed's
/// `X-WR-TIMEZONE` names, as Google Calendar, Apple Calendar and Outlook read them, else the
/// household's (RFC 5545 §3.3.5: floating times are the same wall time wherever one is).
public struct ICSTimeZoneResolver: Sendable {
    public let household: TimeZone
    public let definitions: [String: ICSVTimeZone]
    /// The zone floating times are read in.
    public let floating: TimeZone

    public init(household: TimeZone, definitions: [ICSVTimeZone] = [], declaredTimeZone: String? = nil) {
        self.household = household
        self.definitions = Dictionary(definitions.map { ($0.tzid, $0) }, uniquingKeysWith: { first, _ in first })
        self.floating = declaredTimeZone.flatMap { Self.iana($0.trimmingWhitespace) } ?? household
    }

    /// The zone a `TZID` parameter names, and a note when it had to be guessed.
    public func zone(for tzid: String) -> (zone: ICSZone, note: String?) {
        var name = tzid.trimmingWhitespace
        if name.hasPrefix("\"") && name.hasSuffix("\"") && name.count >= 2 {
            name = String(name.dropFirst().dropLast())
        }
        if let zone = Self.iana(name) { return (.system(zone), nil) }
        if let definition = definitions[name] ?? definitions[tzid] { return (.defined(definition), nil) }
        if let iana = WindowsTimeZones.ianaIdentifier(for: name), let zone = TimeZone(identifier: iana) {
            return (.system(zone), nil)
        }
        if let offset = Self.fixedOffset(name), let zone = TimeZone(secondsFromGMT: offset) {
            return (.system(zone), nil)
        }
        return (.system(household), "unknown TZID \"\(name)\", read in \(household.identifier)")
    }

    /// An IANA zone for `name`, trying each `/`-separated suffix of a prefixed, globally unique TZID.
    static func iana(_ name: String) -> TimeZone? {
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        if !name.hasPrefix("/") { return TimeZone(identifier: name) }
        let parts = name.split(separator: "/")
        for start in parts.indices {
            if let zone = TimeZone(identifier: parts[start...].joined(separator: "/")) { return zone }
        }
        return nil
    }

    /// `GMT+01:00`, `UTC-0500`, `(UTC+05:30) Chennai, …` → seconds east of UTC.
    static func fixedOffset(_ name: String) -> Int? {
        var text = Substring(name)
        if text.hasPrefix("(") { text = text.dropFirst() }
        guard text.hasPrefix("UTC") || text.hasPrefix("GMT") else { return nil }
        text = text.dropFirst(3)
        guard let sign = text.first else { return 0 }
        guard sign == "+" || sign == "-" else { return text.first == ")" ? 0 : nil }
        let digits = text.dropFirst().prefix { $0.isNumber || $0 == ":" }.filter(\.isNumber)
        guard digits.count == 2 || digits.count == 4, let value = Int(digits) else { return nil }
        let seconds = digits.count == 2 ? value * 3600 : (value / 100) * 3600 + (value % 100) * 60
        guard seconds <= 14 * 3600 else { return nil }
        return sign == "-" ? -seconds : seconds
    }
}
