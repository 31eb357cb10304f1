/// Whether a request's path is canonical — the one spelling the router and `Admission` read the
/// same way. Hummingbird's router skips empty segments (`//v1/today` matches `/v1/today`) while a
/// prefix rule on the raw path does not; so a path is refused before anything judges it unless
/// it is written exactly as the route is: no empty segment (`//`, a trailing `/`), no `.` or `..`
/// segment, nothing percent-encoded that the router would read as structure (`%2F`, `%5C`, an
/// encoded dot segment, `%00`), no backslash, no control character. `/` alone is the dashboard.
public enum RequestPath {
    /// What is wrong with `path`, or nil when it is canonical.
    public static func problem(_ path: String) -> String? {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/") else { return "a path starts with /" }
        if bytes.count == 1 { return nil }
        var segmentStart = true
        var segment: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "/"):
                if let problem = segmentProblem(segment, first: segmentStart) { return problem }
                segment.removeAll(keepingCapacity: true)
                segmentStart = false
            case 0..<0x20, 0x7F:
                return "a path has no control characters"
            case UInt8(ascii: "\\"):
                return "a path has no backslash"
            case UInt8(ascii: "%"):
                let next = bytes.index(after: index)
                guard next < bytes.endIndex, bytes.index(after: next) < bytes.endIndex,
                    let high = hexValue(bytes[next]), let low = hexValue(bytes[bytes.index(after: next)])
                else { return "a path's % is followed by two hex digits" }
                let decoded = high << 4 | low
                switch decoded {
                case UInt8(ascii: "/"), UInt8(ascii: "\\"): return "a path has no encoded slash or backslash"
                case 0..<0x20, 0x7F: return "a path has no control characters"
                default: break
                }
                segment.append(decoded)
                index = bytes.index(after: bytes.index(after: next))
                continue
            default:
                segment.append(byte)
            }
            index = bytes.index(after: index)
        }
        if segment.isEmpty { return "a path has no trailing /" }
        return segmentProblem(segment, first: false)
    }

    private static func segmentProblem(_ segment: [UInt8], first: Bool) -> String? {
        // The leading "/" ends an empty "segment" before the first one: that one is fine.
        if first { return nil }
        if segment.isEmpty { return "a path has no empty segments (//)" }
        if segment == [UInt8(ascii: ".")] || segment == [UInt8(ascii: "."), UInt8(ascii: ".")] {
            return "a path has no . or .. segments"
        }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
