import Foundation

extension Civil {
    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// IMF-fixdate (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`) of seconds since 1970.
    public static func httpDate(_ seconds: Int64) -> String {
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let rest = Int(seconds - Int64(days) * 86_400)
        let (y, m, d) = date(fromDays: days)
        let weekday = (Civil.weekday(ofDay: days) + 1) % 7
        return "\(weekdayNames[weekday]), \(pad(d, 2)) \(monthNames[m - 1]) \(pad(y, 4)) "
            + "\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2)) GMT"
    }

    /// Seconds since 1970 of an IMF-fixdate; nil for anything else (RFC 9110 says to ignore an
    /// `If-Modified-Since` that is not a valid date; the obsolete formats count as invalid here).
    public static func parseHTTPDate(_ s: String) -> Int64? {
        let parts = s.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            weekdayNames.contains(String(parts[0].dropLast())), parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2,
            let monthIndex = monthNames.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), parts[3].count == 4
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }), let hour = Int(time[0]), let minute = Int(time[1]),
            let second = Int(time[2]), hour < 24, minute < 60, second < 61,
            day >= 1, day <= daysIn(month: monthIndex + 1, year: year)
        else { return nil }
        return Int64(days(year: year, month: monthIndex + 1, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }
}
