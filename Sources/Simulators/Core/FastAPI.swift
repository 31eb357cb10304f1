import Foundation
import Hummingbird

// Pieces shared by simulators of FastAPI/Starlette servers: routing with redirect_slashes,
// query parsing, pydantic-style validation errors and pydantic's datetime parsing.

// MARK: - Routing (Starlette semantics)

/// A route table that matches like Starlette's `Router`: routes are tried in order; a path match
/// with the wrong method gives 405 (with `allow` naming the first such route's method); with no
/// match at all, a path that would match once its trailing slashes are stripped gets a 307 to that
/// path (query kept); anything else is 404 `{"detail":"Not Found"}`.
struct StarletteRouter: Sendable {
    typealias Handler = @Sendable (SimRequest, [String: String]) async -> Response

    struct Route: Sendable {
        let method: HTTPRequest.Method
        let parts: [Part]
        let handler: Handler
    }

    enum Part: Sendable {
        case literal(String)
        case parameter(String)
    }

    private(set) var routes: [Route] = []

    /// Adds a route; `pattern` looks like `/api/events/{event_id}` (a parameter matches `[^/]+`).
    mutating func add(_ method: HTTPRequest.Method, _ pattern: String, _ handler: @escaping Handler) {
        let parts: [Part] = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { piece in
            if piece.hasPrefix("{"), piece.hasSuffix("}") {
                return .parameter(String(piece.dropFirst().dropLast()))
            }
            return .literal(String(piece))
        }
        routes.append(Route(method: method, parts: parts, handler: handler))
    }

    private static func match(_ parts: [Part], path: String) -> [String: String]? {
        guard path.hasPrefix("/") else { return nil }
        let pieces = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard pieces.count == parts.count else { return nil }
        var params: [String: String] = [:]
        for (part, piece) in zip(parts, pieces) {
            switch part {
            case .literal(let literal):
                if piece != literal { return nil }
            case .parameter(let name):
                if piece.isEmpty { return nil }
                params[name] = String(piece)
            }
        }
        return params
    }

    func respond(to request: SimRequest) async -> Response {
        var partial: Route?
        for route in routes {
            guard let params = Self.match(route.parts, path: request.path) else { continue }
            if route.method == request.method {
                return await route.handler(request, params)
            }
            if partial == nil { partial = route }
        }
        if let partial {
            return .json(
                .object(["detail": .string("Method Not Allowed")]),
                status: 405,
                headers: [.allow: partial.method.rawValue]
            )
        }
        if request.path != "/" {
            let toggled: String
            if request.path.hasSuffix("/") {
                var p = Substring(request.path)
                while p.hasSuffix("/") { p = p.dropLast() }
                toggled = String(p)
            } else {
                toggled = request.path + "/"
            }
            if routes.contains(where: { Self.match($0.parts, path: toggled) != nil }) {
                return Self.redirect(request, to: toggled)
            }
        }
        return .json(.object(["detail": .string("Not Found")]), status: 404)
    }

    /// Starlette's `RedirectResponse(URL(scope=redirect_scope))`: 307, `location` built from the
    /// `Host` header, the decoded path and the raw query, then `quote`d; empty body.
    static func redirect(_ request: SimRequest, to path: String) -> Response {
        var url = "http://\(request.authority ?? "127.0.0.1")\(path)"
        if !request.rawQuery.isEmpty { url += "?" + request.rawQuery }
        let location = pythonQuote(url, safe: ":/%#?=@[]!$&'()*+,;~")
        return Response(
            status: .init(code: 307, reasonPhrase: "Temporary Redirect"),
            headers: [.location: location],
            body: .init()
        )
    }
}

// MARK: - Query strings

/// Starlette's query parsing (`parse_qsl(keep_blank_values=True)`): split on `&`, a `+` becomes a
/// space, then percent-decoding. Later duplicates win in ``QueryItems/value(_:)``.
struct QueryItems: Sendable {
    let items: [(String, String)]

    init(raw: String) {
        var items: [(String, String)] = []
        for piece in raw.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = piece.firstIndex(of: "=") {
                items.append((percentDecode(piece[..<eq], plusAsSpace: true), percentDecode(piece[piece.index(after: eq)...], plusAsSpace: true)))
            } else {
                items.append((percentDecode(piece, plusAsSpace: true), ""))
            }
        }
        self.items = items
    }

    /// The last value for `name` (Starlette's `QueryParams.get`), or nil.
    func value(_ name: String) -> String? {
        items.last { $0.0 == name }?.1
    }
}

// MARK: - Validation errors

/// One entry of FastAPI's 422 `{"detail":[...]}`.
struct PydanticError: Sendable {
    var type: String
    var loc: [JSONValue]
    var msg: String
    var input: JSONValue
    var ctx: JSONObject?
    var withURL = true

    var json: JSONValue {
        var o: JSONObject = ["type": .string(type), "loc": .array(loc), "msg": .string(msg), "input": input]
        if let ctx { o.append("ctx", .object(ctx)) }
        if withURL { o.append("url", .string("https://errors.pydantic.dev/2.5/v/\(type)")) }
        return .object(o)
    }

    static func response(_ errors: [PydanticError]) -> Response {
        .json(.object(["detail": .array(errors.map(\.json))]), status: 422)
    }

    static func missing(_ loc: [JSONValue], input: JSONValue) -> PydanticError {
        PydanticError(type: "missing", loc: loc, msg: "Field required", input: input)
    }

    static func stringType(_ loc: [JSONValue], input: JSONValue) -> PydanticError {
        PydanticError(type: "string_type", loc: loc, msg: "Input should be a valid string", input: input)
    }

    static func datetimeParsing(_ loc: [JSONValue], input: JSONValue, error: String) -> PydanticError {
        PydanticError(
            type: "datetime_parsing", loc: loc, msg: "Input should be a valid datetime, \(error)", input: input,
            ctx: ["error": .string(error)]
        )
    }
}

// MARK: - Calendar arithmetic

/// Proleptic Gregorian day arithmetic on microseconds since 1970-01-01T00:00:00 (no time zones).
enum Civil {
    static let microsPerSecond: Int64 = 1_000_000
    static let microsPerDay: Int64 = 86_400 * 1_000_000

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeap(y) ? 29 : 28
        default: 0
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func date(fromDays z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    static func micros(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, micro: Int = 0) -> Int64 {
        days(year: year, month: month, day: day) * microsPerDay
            + (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * microsPerSecond + Int64(micro)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]` (the fraction only when non-zero, always 6 digits).
    static func isoString(_ micros: Int64) -> String {
        let days = micros >= 0 ? micros / microsPerDay : (micros - microsPerDay + 1) / microsPerDay
        let rest = micros - days * microsPerDay
        let (y, m, d) = date(fromDays: days)
        let secs = rest / microsPerSecond
        let frac = rest % microsPerSecond
        var s = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(Int(secs / 3600), 2)):\(pad(Int(secs / 60 % 60), 2)):\(pad(Int(secs % 60), 2))"
        if frac != 0 { s += "." + pad(Int(frac), 6) }
        return s
    }

    /// Parses a strict `YYYY-MM-DD`.
    static func parseDay(_ s: String) -> (year: Int, month: Int, day: Int)? {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let y = digits(b, 0, 4), let m = digits(b, 5, 2), let d = digits(b, 8, 2),
            (1...12).contains(m), d >= 1, d <= daysInMonth(y, m)
        else { return nil }
        return (y, m, d)
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// The decimal value of `count` ASCII digits at `at`, or nil.
    static func digits(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            let c = b[i]
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int(c - UInt8(ascii: "0"))
        }
        return v
    }
}

// MARK: - Python datetimes

/// A Python `datetime`: a wall-clock value plus an optional UTC offset (nil = naive).
struct PyDateTime: Sendable, Equatable {
    /// The wall-clock time as microseconds since 1970-01-01 (ignoring the offset).
    var wallMicros: Int64
    /// Seconds east of UTC; nil for a naive datetime.
    var offsetSeconds: Int?

    var isAware: Bool { offsetSeconds != nil }

    /// The instant in UTC; a naive value is taken as UTC.
    var utcMicros: Int64 { wallMicros - Int64(offsetSeconds ?? 0) * Civil.microsPerSecond }

    /// Python's `<` semantics: nil when one side is naive and the other aware ("can't compare
    /// offset-naive and offset-aware datetimes", a TypeError, i.e. a 500 in FastAPI).
    static func pythonLessOrEqual(_ a: PyDateTime, _ b: PyDateTime) -> Bool? {
        guard a.isAware == b.isAware else { return nil }
        return a.isAware ? a.utcMicros <= b.utcMicros : a.wallMicros <= b.wallMicros
    }

    /// pydantic 2.5 (speedate) parsing of a datetime given as a string: RFC 3339-ish
    /// `YYYY-MM-DD[T t _ space]HH:MM[:SS[.f{1,6}]][Z|±HH[:]MM]`, or a unix timestamp in seconds
    /// (milliseconds above 2e10). The error is speedate's message, e.g.
    /// `invalid datetime separator, expected `T`, `t`, `_` or space`.
    static func pydanticParse(_ s: String) -> Result<PyDateTime, PydanticDateError> {
        let b = Array(s.utf8)
        switch rfc3339(b) {
        case .success(let d): return .success(d)
        case .failure(let error):
            if let timestamp = numericTimestamp(b) { return .success(fromTimestamp(timestamp)) }
            return .failure(error)
        }
    }

    /// A unix timestamp (seconds, or milliseconds when larger than 2e10) as an aware UTC datetime.
    static func fromTimestamp(_ value: Double) -> PyDateTime {
        let seconds = abs(value) > 20_000_000_000 ? value / 1000 : value
        let micros = Int64((seconds * 1_000_000).rounded())
        return PyDateTime(wallMicros: micros, offsetSeconds: 0)
    }

    private static func numericTimestamp(_ b: [UInt8]) -> Double? {
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        let digitStart = i
        while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
        guard i > digitStart else { return nil }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
        }
        guard i == b.count else { return nil }
        return Double(String(decoding: b, as: UTF8.self))
    }

    private static func rfc3339(_ b: [UInt8]) -> Result<PyDateTime, PydanticDateError> {
        guard b.count >= 10 else { return .failure(.tooShort) }
        guard let year = Civil.digits(b, 0, 4) else { return .failure(.invalidCharYear) }
        guard b[4] == UInt8(ascii: "-") else { return .failure(.invalidCharDateSep) }
        guard let month = Civil.digits(b, 5, 2) else { return .failure(.invalidCharMonth) }
        guard b[7] == UInt8(ascii: "-") else { return .failure(.invalidCharDateSep) }
        guard let day = Civil.digits(b, 8, 2) else { return .failure(.invalidCharDay) }
        guard (1...12).contains(month) else { return .failure(.outOfRangeMonth) }
        guard day >= 1, day <= Civil.daysInMonth(year, month) else { return .failure(.outOfRangeDay) }

        guard b.count > 10, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "_"), UInt8(ascii: " ")].contains(b[10]) else {
            return .failure(.invalidCharDateTimeSep)
        }
        let t = 11
        guard b.count - t >= 5 else { return .failure(.tooShort) }
        guard let hour = Civil.digits(b, t, 2) else { return .failure(.invalidCharHour) }
        guard b[t + 2] == UInt8(ascii: ":") else { return .failure(.invalidCharTimeSep) }
        guard let minute = Civil.digits(b, t + 3, 2) else { return .failure(.invalidCharMinute) }
        var pos = t + 5
        var second = 0
        var micro = 0
        if pos < b.count, b[pos] == UInt8(ascii: ":") {
            guard let s = Civil.digits(b, pos + 1, 2) else { return .failure(.invalidCharSecond) }
            second = s
            pos += 3
            if pos < b.count, b[pos] == UInt8(ascii: ".") || b[pos] == UInt8(ascii: ",") {
                pos += 1
                var count = 0
                while pos < b.count, b[pos] >= UInt8(ascii: "0"), b[pos] <= UInt8(ascii: "9") {
                    count += 1
                    if count > 6 { return .failure(.secondFractionTooLong) }
                    micro = micro * 10 + Int(b[pos] - UInt8(ascii: "0"))
                    pos += 1
                }
                if count == 0 { return .failure(.secondFractionMissing) }
                for _ in count..<6 { micro *= 10 }
            }
        }
        guard hour <= 23 else { return .failure(.outOfRangeHour) }
        guard minute <= 59 else { return .failure(.outOfRangeMinute) }
        guard second <= 59 else { return .failure(.outOfRangeSecond) }

        var offset: Int?
        if pos < b.count {
            let c = b[pos]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                offset = 0
                pos += 1
            } else {
                let sign: Int
                switch c {
                case UInt8(ascii: "+"): sign = 1
                case UInt8(ascii: "-"): sign = -1
                default: return .failure(.invalidCharTzSign)
                }
                pos += 1
                guard let tzHour = Civil.digits(b, pos, 2) else { return .failure(.invalidCharTzHour) }
                pos += 2
                var tzMinute = 0
                if pos < b.count {
                    if b[pos] == UInt8(ascii: ":") { pos += 1 }
                    guard let m = Civil.digits(b, pos, 2) else { return .failure(.invalidCharTzMinute) }
                    tzMinute = m
                    pos += 2
                }
                let total = tzHour * 3600 + tzMinute * 60
                guard total < 24 * 3600 else { return .failure(.outOfRangeTz) }
                offset = sign * total
            }
        }
        guard pos == b.count else { return .failure(.extraCharacters) }
        let wall = Civil.micros(year: year, month: month, day: day, hour: hour, minute: minute, second: second, micro: micro)
        return .success(PyDateTime(wallMicros: wall, offsetSeconds: offset))
    }

    /// Python 3.11's `datetime.fromisoformat`: `YYYY-MM-DD` or `YYYYMMDD`, optionally followed by
    /// any one separator character and `HH[:MM[:SS[.ffffff]]]` (or `HH[MM[SS]]`) and a `Z` or
    /// `±HH[:MM]` offset. nil where Python raises ValueError.
    static func fromISOFormat(_ s: String) -> PyDateTime? {
        let b = Array(s.utf8)
        var year: Int
        var month: Int
        var day: Int
        var pos: Int
        if b.count >= 10, b.count > 4, b[4] == UInt8(ascii: "-") {
            guard let y = Civil.digits(b, 0, 4), b[7] == UInt8(ascii: "-"), let m = Civil.digits(b, 5, 2), let d = Civil.digits(b, 8, 2) else {
                return nil
            }
            (year, month, day, pos) = (y, m, d, 10)
        } else {
            guard let y = Civil.digits(b, 0, 4), let m = Civil.digits(b, 4, 2), let d = Civil.digits(b, 6, 2) else { return nil }
            (year, month, day, pos) = (y, m, d, 8)
        }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= Civil.daysInMonth(year, month) else { return nil }
        if pos == b.count {
            return PyDateTime(wallMicros: Civil.micros(year: year, month: month, day: day), offsetSeconds: nil)
        }
        // Any single (Unicode) separator character.
        let rest = String(decoding: b[pos...], as: UTF8.self)
        let afterSeparator = Array(rest.unicodeScalars.dropFirst())
        guard afterSeparator.allSatisfy({ $0.isASCII }) else { return nil }
        let t = afterSeparator.map { UInt8($0.value) }
        var i = 0
        var offset: Int?
        // Split off the timezone part.
        var timeEnd = t.count
        if let z = t.firstIndex(where: { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) {
            timeEnd = z
            let tz = Array(t[z...])
            if tz == [UInt8(ascii: "Z")] {
                offset = 0
            } else if tz.first != UInt8(ascii: "Z") {
                let sign = tz[0] == UInt8(ascii: "+") ? 1 : -1
                let body = tz.dropFirst().filter { $0 != UInt8(ascii: ":") }
                let digits = Array(body)
                guard digits.count == 2 || digits.count == 4, let h = Civil.digits(digits, 0, 2) else { return nil }
                let m = digits.count == 4 ? (Civil.digits(digits, 2, 2) ?? 99) : 0
                guard h < 24, m < 60 else { return nil }
                offset = sign * (h * 3600 + m * 60)
            } else {
                return nil
            }
        }
        let time = Array(t[..<timeEnd])
        var fields: [Int] = []
        var micro = 0
        while i < time.count {
            guard let v = Civil.digits(time, i, 2) else { return nil }
            fields.append(v)
            i += 2
            if i < time.count {
                if time[i] == UInt8(ascii: ":") {
                    i += 1
                    guard i < time.count else { return nil }
                } else if time[i] == UInt8(ascii: ".") || time[i] == UInt8(ascii: ",") {
                    guard fields.count == 3 else { return nil }
                    let frac = time[(i + 1)...]
                    guard !frac.isEmpty, frac.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
                    let six = Array(frac.prefix(6))
                    micro = Civil.digits(six, 0, six.count) ?? 0
                    for _ in six.count..<6 { micro *= 10 }
                    i = time.count
                }
            }
        }
        guard !fields.isEmpty, fields.count <= 3 else { return nil }
        let hour = fields[0]
        let minute = fields.count > 1 ? fields[1] : 0
        let second = fields.count > 2 ? fields[2] : 0
        guard hour <= 23, minute <= 59, second <= 59 else { return nil }
        return PyDateTime(
            wallMicros: Civil.micros(year: year, month: month, day: day, hour: hour, minute: minute, second: second, micro: micro),
            offsetSeconds: offset
        )
    }
}

/// speedate's parse errors, with pydantic's wording.
enum PydanticDateError: String, Error, Sendable {
    case tooShort = "input is too short"
    case invalidCharYear = "invalid character in year"
    case invalidCharDateSep = "invalid date separator, expected `-`"
    case invalidCharMonth = "invalid character in month"
    case invalidCharDay = "invalid character in day"
    case invalidCharDateTimeSep = "invalid datetime separator, expected `T`, `t`, `_` or space"
    case invalidCharHour = "invalid character in hour"
    case invalidCharTimeSep = "invalid time separator, expected `:`"
    case invalidCharMinute = "invalid character in minute"
    case invalidCharSecond = "invalid character in second"
    case secondFractionMissing = "second fraction value is missing"
    case secondFractionTooLong = "second fraction value is more than 6 digits long"
    case invalidCharTzSign = "invalid timezone sign"
    case invalidCharTzHour = "invalid timezone hour"
    case invalidCharTzMinute = "invalid timezone minute"
    case outOfRangeMonth = "month value is outside expected range of 1-12"
    case outOfRangeDay = "day value is outside expected range"
    case outOfRangeHour = "hour value is outside expected range of 0-23"
    case outOfRangeMinute = "minute value is outside expected range of 0-59"
    case outOfRangeSecond = "second value is outside expected range of 0-59"
    case outOfRangeTz = "timezone offset must be less than 24 hours"
    case extraCharacters = "unexpected extra characters at the end of the input"
}
