import Foundation
import Hummingbird
import Model

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
                items.append(
                    (
                        percentDecode(piece[..<eq], plusAsSpace: true),
                        percentDecode(piece[piece.index(after: eq)...], plusAsSpace: true)
                    ))
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

    /// pydantic's `string_too_short` / `string_too_long` for a string of `s`'s length (in Unicode
    /// scalars, Python's `len`) outside `min...max`; nil when it fits.
    static func stringLength(_ s: String, min: Int?, max: Int?, loc: [JSONValue], input: JSONValue) -> PydanticError? {
        let length = s.unicodeScalars.count
        if let min, length < min {
            return PydanticError(
                type: "string_too_short", loc: loc,
                msg: "String should have at least \(min) character\(min == 1 ? "" : "s")",
                input: input, ctx: ["min_length": .int(min)]
            )
        }
        if let max, length > max {
            return PydanticError(
                type: "string_too_long", loc: loc,
                msg: "String should have at most \(max) character\(max == 1 ? "" : "s")",
                input: input, ctx: ["max_length": .int(max)]
            )
        }
        return nil
    }

    /// pydantic's lax str → bool (case-insensitive); nil for any other string (`bool_parsing`).
    static func laxBool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "0", "off", "f", "false", "n", "no": false
        case "1", "on", "t", "true", "y", "yes": true
        default: nil
        }
    }

    static func modelAttributesType(_ input: JSONValue) -> PydanticError {
        PydanticError(
            type: "model_attributes_type", loc: [.string("body")],
            msg: "Input should be a valid dictionary or object to extract fields from", input: input
        )
    }

    /// FastAPI's own error for a `json.JSONDecodeError` (no `url`). The position and message are
    /// approximations of Python's `json` module.
    static func jsonInvalid(_ bytes: [UInt8]) -> PydanticError {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]
        func nextNonWhitespace(from i: Int) -> Int {
            bytes[i...].firstIndex { !whitespace.contains($0) } ?? bytes.count
        }
        let first = nextNonWhitespace(from: 0)
        let starts = Set("{[\"-0123456789tfnNI".utf8)
        let position: Int
        let message: String
        if first >= bytes.count || !starts.contains(bytes[first]) {
            (position, message) = (first, "Expecting value")
        } else if bytes[first] == UInt8(ascii: "{"), case let next = nextNonWhitespace(from: first + 1),
            next < bytes.count,
            bytes[next] != UInt8(ascii: "\""), bytes[next] != UInt8(ascii: "}")
        {
            (position, message) = (next, "Expecting property name enclosed in double quotes")
        } else if bytes[first] == UInt8(ascii: "{"),
            let last = bytes.lastIndex(where: { !whitespace.contains($0) }),
            bytes[last] == UInt8(ascii: "{") || bytes[last] == UInt8(ascii: ",")
        {
            // An object cut off where a key should come: `{` or `{"title": "x",` (recorded: 8alls 041, 062).
            (position, message) = (bytes.count, "Expecting property name enclosed in double quotes")
        } else {
            (position, message) = (bytes.count, "Expecting value")
        }
        return PydanticError(
            type: "json_invalid", loc: [.string("body"), .int(position)], msg: "JSON decode error", input: .object([:]),
            ctx: ["error": .string(message)], withURL: false
        )
    }
}

// MARK: - JSON bodies

/// How FastAPI reads the body of a route with a pydantic model parameter.
enum FastAPIBody {
    /// The body as a JSON object; a failure is the 422 response: `missing` for an empty body,
    /// `model_attributes_type` for a non-JSON content type (pydantic gets the raw text) or a
    /// non-object, `json_invalid` for malformed JSON.
    static func object(_ request: SimRequest) -> Checked<JSONObject, Response> {
        let bodyLoc: [JSONValue] = [.string("body")]
        guard request.body.readableBytes > 0 else {
            return .failure(PydanticError.response([.missing(bodyLoc, input: .null)]))
        }
        let bytes = Array(request.body.readableBytesView)
        guard isJSONContentType(request.headers[.contentType]) else {
            // FastAPI hands the raw bytes to pydantic.
            return .failure(
                PydanticError.response([.modelAttributesType(.string(String(decoding: bytes, as: UTF8.self)))]))
        }
        guard let body = JSONValue.parse(bytes) else {
            return .failure(PydanticError.response([.jsonInvalid(bytes)]))
        }
        guard case .object(let object) = body else {
            return .failure(PydanticError.response([.modelAttributesType(body)]))
        }
        return .success(object)
    }

    /// FastAPI's check: no content type, `application/json` or `application/*+json`.
    static func isJSONContentType(_ value: String?) -> Bool {
        guard let value, !value.isEmpty else { return true }
        let mime =
            value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            ?? ""
        let parts = mime.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, parts[0] == "application" else { return false }
        return parts[1] == "json" || parts[1].hasSuffix("+json")
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
        guard day >= 1, day <= Civil.daysIn(month: month, year: year) else { return .failure(.outOfRangeDay) }

        guard b.count > 10,
            [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "_"), UInt8(ascii: " ")].contains(b[10])
        else {
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
        let wall = Civil.micros(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, micro: micro)
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
            guard let y = Civil.digits(b, 0, 4), b[7] == UInt8(ascii: "-"), let m = Civil.digits(b, 5, 2),
                let d = Civil.digits(b, 8, 2)
            else {
                return nil
            }
            (year, month, day, pos) = (y, m, d, 10)
        } else {
            guard let y = Civil.digits(b, 0, 4), let m = Civil.digits(b, 4, 2), let d = Civil.digits(b, 6, 2) else {
                return nil
            }
            (year, month, day, pos) = (y, m, d, 8)
        }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= Civil.daysIn(month: month, year: year) else {
            return nil
        }
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
        if let z = t.firstIndex(where: { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
        ) {
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
                    guard !frac.isEmpty, frac.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                        return nil
                    }
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
            wallMicros: Civil.micros(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, micro: micro),
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
