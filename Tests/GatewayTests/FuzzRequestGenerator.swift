import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import SeededRandom
import Simulators
import Synchronization
import Testing
import Yams

// MARK: - Part 1 generation

struct FuzzRequest: Sendable {
    var index: Int
    var method: HTTPRequest.Method
    var uri: String
    var headers: HTTPFields
    var body: ByteBuffer?

    var summary: String {
        let headerText = headers.map { "\($0.name.rawName): \(fuzzShown($0.value, 48))" }.joined(separator: "; ")
        let bodyText = body.map { " body=\($0.readableBytes)B" } ?? ""
        return "\(method.rawValue) \(fuzzShown(uri, 160)) [\(fuzzShown(headerText, 300))]\(bodyText)"
    }
}

func fuzzShown(_ text: String, _ limit: Int) -> String {
    let escaped = text.unicodeScalars.map { scalar -> String in
        scalar.properties.generalCategory == .control ? String(format: "\\u{%02X}", scalar.value) : String(scalar)
    }.joined()
    guard escaped.count > limit else { return escaped }
    return String(escaped.prefix(limit)) + "…(\(text.utf8.count) bytes)"
}

enum FuzzPhase: String, Sendable {
    case healthy, latency
    case mixedFaults = "mixed faults"
    case allDown = "all down"

    static func of(_ index: Int, count: Int) -> FuzzPhase {
        if index < count * 6 / 10 { return .healthy }
        if index < count * 8 / 10 { return .mixedFaults }
        return .allDown
    }

    func apply(to demo: DemoHarness, seed: UInt64) {
        var rng = SplitMix64(seed: seed ^ 0xFA17)
        for kind in SimulatorKind.demoKinds {
            let faults: SimulatorFaults
            switch self {
            case .healthy: faults = .off
            case .latency: faults = SimulatorFaults(latencyMs: 2600)
            case .allDown: faults = SimulatorFaults(down: SimulatorFaults.reset)
            case .mixedFaults:
                faults = rng.pick([
                    .off, SimulatorFaults(down: SimulatorFaults.reset), SimulatorFaults(down: SimulatorFaults.refuse),
                    SimulatorFaults(errorStatus: 503), SimulatorFaults(errorStatus: 500, errorRate: 0.5),
                    SimulatorFaults(errorStatus: 429),
                    SimulatorFaults(garbage: true),
                ])
            }
            demo.simulator(kind).control.setFaults(faults)
        }
    }
}

struct FuzzParameterSpec: Sendable {
    var name: String
    var type: String
    var min: Int?
    var max: Int?
    var values: [String]?
}

struct FuzzRouteSpec: Sendable {
    var path: String
    var parameters: [FuzzParameterSpec]
}

struct FuzzRequestGenerator: Sendable {
    let seed: UInt64
    let routes: [FuzzRouteSpec]
    let knownPaths: [String]

    static let parameterNames = [
        "date", "from", "to", "type", "status", "past_days", "future_days", "limit", "q", "list", "tenant", "period",
        "_cachebust", "_",
    ]

    func request(_ index: Int, etags: [String]) -> FuzzRequest {
        var rng = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        var method = Self.method(&rng)
        var path = Self.path(&rng, known: knownPaths)
        if let route = routes.first(where: { $0.path == path }), rng.percent(45) {
            // A well-formed query, so the aggregation (and the upstream failure paths) run.
            if let query = Self.validQuery(&rng, route: route) { path += "?" + query }
        } else if rng.percent(75) {
            path += "?" + Self.query(&rng)
        } else if rng.percent(5) {
            path += rng.pick(["?", "?&&", "?=", "?=x", "?date", "#frag", "?#"])
        }
        // GET /v1/stream is an endless SSE stream: never ask for it (in any spelling).
        if method == .get, Self.isStream(path) { method = rng.pick([.post, .delete, .options, .put]) }
        let headers = Self.headers(&rng, method: method, etags: etags)
        let body = Self.body(&rng, method: method)
        return FuzzRequest(index: index, method: method, uri: path, headers: headers, body: body)
    }

    /// Hand-picked requests aimed at the places that echo client input (error messages, the
    /// request id) or parse it (query decoding, dates, numbers, ETags).
    static func corpus() -> [FuzzRequest] {
        let uris = [
            "/v1/events?%0A=%zz", "/v1/events?%01x=%zz", "/v1/events?%1B%5B31m=%", "/v1/events?%00=1",
            "/v1/events?%0D%0A=1",
            "/v1/events?date=%0A", "/v1/events?date=%1B%5B2J", "/v1/tasks?list=%0Ainbox", "/v1/events?%E2%80%AE=1",
            "/v1/events?a%0Ab=1&a%0Ab=2",
            "/v1/diensten?future_days=%0A5", "/v1/nope%0A", "/v1/%1B%5B31m", "/v1/events?date=2026-02-30",
            "/v1/events?date=99999-01-01",
            "/v1/events?from=2026-01-01&to=2025-01-01", "/v1/events?from=0001-01-01&to=9999-12-31",
            "/v1/diensten?future_days=99999999999999999999",
            "/v1/knowledge/recent?limit=-9223372036854775808",
            "/v1/knowledge/search?q=" + String(repeating: "%FF", count: 300),
            "/v1/summary?date=%0A", "/v1/today?date=today", "/v1/events?type=" + String(repeating: "t", count: 51),
        ]
        var requests = uris.enumerated().map {
            FuzzRequest(index: -100 - $0.offset, method: .get, uri: $0.element, headers: [:], body: nil)
        }
        for (offset, value) in ["\u{1}\u{2}", "a\u{7F}b", String(repeating: "i", count: 8192), "ok-id"].enumerated() {
            requests.append(
                FuzzRequest(
                    index: -200 - offset, method: .get, uri: "/healthz",
                    headers: [HTTPField.Name("X-Request-Id")!: value], body: nil))
        }
        for (offset, value) in ["*", "W/\"\"", "\"\u{1}\"", String(repeating: "\"x\", ", count: 1000)].enumerated() {
            requests.append(
                FuzzRequest(
                    index: -300 - offset, method: .get, uri: "/v1/summary", headers: [.ifNoneMatch: value], body: nil))
        }
        return requests
    }

    static func method(_ rng: inout SplitMix64) -> HTTPRequest.Method {
        switch rng.below(100) {
        case 0..<60: .get
        case 60..<70: .head
        case 70..<78: .post
        case 78..<83: .put
        case 83..<88: .delete
        case 88..<92: .patch
        case 92..<98: .options
        default:
            rng.pick([
                .trace, .connect, HTTPRequest.Method("PROPFIND")!, HTTPRequest.Method("FOO")!,
                HTTPRequest.Method("get")!,
            ])
        }
    }

    /// True when the path would reach /v1/stream however it is spelled (encoding, case, dots,
    /// repeated slashes).
    static func isStream(_ uri: String) -> Bool {
        let path = String(uri.prefix { $0 != "?" && $0 != "#" })
        var decoded = path
        for _ in 0..<3 { decoded = decoded.removingPercentEncoding ?? decoded }
        var parts: [String] = []
        for part in decoded.lowercased().split(separator: "/", omittingEmptySubsequences: true) {
            let trimmed = part.split(separator: ";").first.map(String.init) ?? ""
            if trimmed == "." || trimmed.isEmpty { continue }
            if trimmed == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(trimmed)
        }
        return parts.suffix(2) == ["v1", "stream"] || decoded.lowercased().contains("stream")
    }

    static func path(_ rng: inout SplitMix64, known: [String]) -> String {
        let base = rng.pick(known)
        switch rng.below(22) {
        case 0..<10: return base
        case 10: return base + "/"
        case 11:
            return rng.pick(["/" + base, base.replacingOccurrences(of: "/v1/", with: "/v1//"), "//", "///v1///today"])
        case 12:
            return rng.pick([
                base + "/..", "/v1/../healthz", "/v1/%2e%2e/metrics", "/%2e%2e/%2e%2e/etc/passwd",
                "/..%2f..%2fetc%2fpasswd",
                "/static/../../etc/passwd", "/v1/./today", "/./", "/..", "/v1/%2E%2E/%2E%2E/", "/..;/v1/today",
                "/v1/today/..%5c..%5c",
            ])
        case 13:
            return rng.pick([base + "%00", "/v1/today%00.json", "/%00", base + "%00/x", "/v1/%00today", "/healthz%00"])
        case 14:
            let length = rng.pick([256, 1000, 4096, 10000, 20000])
            return "/v1/" + String(repeating: rng.pick(["a", "%41", "é", "/"]), count: length / 2)
        case 15:
            return rng.pick([
                "/v1/tōday", "/v1/😀", "/v1/%E2%98%83", "/v1/%C0%AF", "/v1/%FF%FE", "/%F0%9F%98%80", "/v1/\u{202E}yadot",
                "/v1/today\u{FEFF}", "/v1/日本", "/v1/%ED%A0%80",
            ])
        case 16:
            return rng.pick([
                "/v1%2Ftoday", "/v1/tasks%2Fcounts", "%2Fv1%2Ftoday", "/v1%2ftasks", "/v1/knowledge%2frecent",
                "/v1%5ctoday",
            ])
        case 17:
            return rng.pick([
                "/v2/today", "/v1", "/v1/", "/V1/TODAY", base.uppercased(), "/favicon.ico", "/index.html", "/.env",
                "/.git/config",
                "/v1/today.json", "/v1/tasks/counts/extra", "/api", "*", "", "/robots.txt", "/v1/_sim/faults",
                "/_sim/faults",
            ])
        case 18: return base + rng.pick([";jsessionid=1", "#x", ";", "%20", "%09", " ", "+", "~", "/%", "/%zz", "%"])
        case 19: return base + "/" + rng.string("abcXYZ019-._~!$&'()*+,;=:@%", count: rng.int(1...30))
        case 20:
            let segments = (0..<rng.int(1...6)).map { _ in
                rng.string("abcdefghijklmnopqrstuvwxyz0123456789-_.%~", count: rng.int(0...12))
            }
            return "/" + segments.joined(separator: "/")
        default:
            return rng.pick([
                "http://evil.example/v1/today", "//evil.example/v1/today", "localhost:8787", "/v1/today?x=1?y=2",
            ])
        }
    }

    /// A local day near today (often cached) or anywhere in 2020–2030 (a miss upstream).
    static func validDate(_ rng: inout SplitMix64) -> String {
        if rng.percent(60) {
            let day = Calendar(identifier: .gregorian).date(byAdding: .day, value: rng.int(-10...10), to: Date())!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = DemoHarness.zone
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        return String(format: "%04d-%02d-%02d", rng.int(2020...2030), rng.int(1...12), rng.int(1...28))
    }

    static func validQuery(_ rng: inout SplitMix64, route: FuzzRouteSpec) -> String? {
        var items: [String] = []
        let names = Set(route.parameters.map(\.name))
        let range = names.contains("from") && names.contains("to") && (!names.contains("date") || rng.percent(30))
        for parameter in route.parameters
        where rng.percent(50) || (range && (parameter.name == "from" || parameter.name == "to")) {
            if range, parameter.name == "date" { continue }
            if !range, names.contains("date"), parameter.name == "from" || parameter.name == "to" { continue }
            let value: String
            switch parameter.type {
            case "date":
                value = validDate(&rng)
            case "int":
                value = String(rng.int((parameter.min ?? 0)...(parameter.max ?? 100)))
            default:
                value =
                    parameter.values.map { rng.pick($0) }
                    ?? encoded(rng.pick(["swift", "a", "vvwilhelmus", "agovv", "meeting", "x y", "ü"]))
            }
            items.append("\(parameter.name)=\(value)")
        }
        if range, let from = items.firstIndex(where: { $0.hasPrefix("from=") }),
            let to = items.firstIndex(where: { $0.hasPrefix("to=") }),
            items[from].dropFirst(5) > items[to].dropFirst(3)
        {
            items.swapAt(from, to)
            items[from] = "from=" + items[from].dropFirst(3)
            items[to] = "to=" + items[to].dropFirst(5)
        }
        if rng.percent(15) { items.append(rng.pick(["_cachebust", "_"]) + "=\(rng.int(0...999_999))") }
        return items.isEmpty ? nil : items.joined(separator: "&")
    }

    static func query(_ rng: inout SplitMix64) -> String {
        if rng.percent(2) { return "q=" + String(repeating: "x", count: rng.int(4000...6000)) }
        var items: [String] = []
        for _ in 0..<rng.int(0...5) {
            let name: String
            if rng.percent(85) {
                name = rng.pick(parameterNames)
            } else {
                name = rng.pick([
                    "", "%zz", "dat%65", "DATE", "date[]", "a b", "%00", "%0A", "%01x", "%1B%5B31m", "%E2%80%AE", "ü",
                    "x" + String(repeating: "y", count: rng.int(1...300)), "=",
                ])
            }
            let value = Self.value(&rng, for: name)
            items.append(rng.percent(3) ? name : "\(name)=\(value)")
            if rng.percent(10) { items.append("\(name)=\(Self.value(&rng, for: name))") }  // repeated
        }
        return items.joined(separator: "&")
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func value(_ rng: inout SplitMix64, for name: String) -> String {
        if rng.percent(8) {
            return rng.pick([
                "%zz", "%", "%E2%82", "%0A%0D", "%00", "%1B[31m", "a%", "%%", "+", "%2B", "%C0%80", "%7F%08", "x%0Ay",
            ])
        }
        let raw: String
        switch name {
        case "date", "from", "to":
            raw = rng.pick([
                "today", "",
                String(format: "%04d-%02d-%02d", rng.int(2020...2030), rng.int(1...12), rng.int(1...28)),
                "2026-02-30", "99999-01-01", "2026-13-01", "2026-00-10", "2026-1-1", "0000-00-00", "-0001-01-01",
                "2026-02-29",
                "2024-02-29", "2026/02/01", "20260201", "2026-02-01T00:00:00Z", "tomorrow", " 2026-02-01", "２０２６-01-01",
                "2026-02-01\u{0}", "1970-01-01", "9999-12-31",
            ])
        case "past_days", "future_days", "limit", "_cachebust", "_":
            raw = rng.pick([
                String(rng.int(0...400)), "0", "-1", "1", "100", "101", "366", "367", "99999999999999999999",
                "9223372036854775807",
                "-9223372036854775808", "1e3", "0x10", " 5", "5 ", "+5", "٣", "abc", "", "1.5", "NaN", "Infinity",
                "007",
            ])
        case "list":
            raw = rng.pick(["inbox", "acties", "opvolgen", "INBOX", "", "projecten", "../inbox", "inbox\u{1}"])
        case "period": raw = rng.pick(["week", "month", "season", "year", "", "Week", "season\u{0}"])
        case "status": raw = rng.pick(["confirmed", "tentative", "cancelled", "", "bogus", "confirmed,tentative"])
        case "tenant":
            raw = rng.pick(["vvwilhelmus", "agovv", "sc-emma", "unknown-club", "", "../admin", "a/b", "x\u{7}"])
        default:
            raw = rng.pick([
                "swift", "", "x", String(repeating: "a", count: 1000), String(repeating: "ü", count: rng.int(1...300)),
                "<script>alert(1)</script>",
                "\"quoted\"", "'; DROP TABLE cache; --", "\\", "{\"a\":1}", "line\nbreak", "tab\tbed", "\u{1B}[2J", "😀",
                "a b", "null",
                rng.string("abcdefghijklmnopqrstuvwxyz0123456789 -_.!~*'()", count: rng.int(0...60)),
            ])
        }
        return rng.percent(90) ? encoded(raw) : raw
    }

    static let longValues = [1024, 4096, 8192]

    static func headers(_ rng: inout SplitMix64, method: HTTPRequest.Method, etags: [String]) -> HTTPFields {
        var fields = HTTPFields()
        func add(_ name: String, _ value: String) {
            guard let name = HTTPField.Name(name) else { return }
            fields.append(HTTPField(name: name, value: value))
        }
        for _ in 0..<rng.int(0...6) {
            switch rng.below(12) {
            case 0:
                add(
                    "Cache-Control",
                    rng.pick([
                        "no-cache", "max-age=0", "no-store", "max-age=abc", "", "no-cache, no-cache", "NO-CACHE",
                        "max-age=-1",
                        "only-if-cached", "no-cache=\"etag\"", "max-stale",
                        rng.string("abc,=;\" ", count: rng.int(0...40)),
                    ]))
            case 1:
                var choices = [
                    "*", "\"abc\"", "W/\"x\"", "\"a\", \"b\"", "", "garbage", "W/", "\"", "*, \"x\"",
                    "\"\(String(repeating: "f", count: 300))\"",
                ]
                if let etag = etags.last { choices += [etag, etag, "W/" + etag, "\"nope\", " + etag] }
                add("If-None-Match", rng.pick(choices))
            case 2:
                add(
                    "Authorization",
                    rng.pick([
                        "Bearer ", "Bearer x", "Basic Zm9vOmJhcg==", "Bearer " + String(repeating: "k", count: 8000),
                        "bearer abc", "Bearer a b c",
                        "Token", "", "Bearer \u{0}", "Digest username=\"x\"", "Bearer %00",
                    ]))
            case 3:
                add(
                    "Content-Type",
                    rng.pick([
                        "application/json", "application/json; charset=utf-8", "text/plain",
                        "multipart/form-data; boundary=x", "",
                        "application/x-www-form-urlencoded", "APPLICATION/JSON", "application/jsonx",
                        "application/json;;;", "*/*", "garbage",
                    ]))
            case 4:
                add(
                    "Host",
                    rng.pick([
                        "localhost", "127.0.0.1:8787", "evil.example", "localhost.evil.example", "[::1]:8787", "",
                        String(repeating: "a", count: 300),
                        "127.0.0.1.nip.io", "foo.localhost", "LOCALHOST", "localhost:", "localhost:99999", "0x7f.1",
                        "[::1", "evil.example:8787",
                    ]))
            case 5:
                add(
                    "Origin",
                    rng.pick([
                        "http://localhost:8787", "https://evil.example", "null", "", "http://127.0.0.1:8787", "garbage",
                        "file://",
                    ]))
                if method == .options || rng.percent(20) {
                    add("Access-Control-Request-Method", rng.pick(["GET", "POST", "DELETE", "", "FOO"]))
                }
                if rng.percent(30) {
                    add(
                        "Access-Control-Request-Headers",
                        rng.pick(["authorization", "x-evil", "", "content-type, authorization"]))
                }
            case 6:
                add(
                    "X-Request-Id",
                    rng.pick([
                        "abc", "", String(repeating: "r", count: rng.pick(longValues)), "id\u{1}ctl", "ünïcode",
                        "\"; DROP", "a b c", "../../x",
                        rng.string("0123456789abcdef-", count: 36),
                    ]))
            case 7: add("Pragma", rng.pick(["no-cache", "", "x"]))
            case 8:
                add(
                    rng.pick([
                        "Accept", "Accept-Encoding", "Range", "If-Modified-Since", "If-Match", "Expect", "Connection",
                        "Upgrade", "TE", "Transfer-Encoding",
                    ]),
                    rng.pick([
                        "*/*", "gzip, br", "bytes=0-10", "garbage", "100-continue", "close", "websocket", "trailers",
                        "chunked", "",
                    ]))
            case 9:
                if rng.percent(30) {
                    add("Content-Length", rng.pick(["-1", "abc", "99999999999", "0", "1", "999999", " 5"]))
                } else {
                    add("Cache-Control", "no-cache")  // a refetch: the upstream paths run
                }
            case 10:
                add("X-Fuzz-" + rng.string("abcdefghij", count: 4), String(repeating: "v", count: rng.pick(longValues)))
            default:
                add(
                    rng.string("abcdefghijklmnopqrstuvwxyz-", count: rng.int(1...20)),
                    rng.string("abc \t!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", count: rng.int(0...80)))
            }
        }
        if rng.percent(3) {
            for number in 0..<rng.int(90...160) { add("X-Many-\(number)", "v\(number)") }
        }
        return fields
    }

    static func body(_ rng: inout SplitMix64, method: HTTPRequest.Method) -> ByteBuffer? {
        let writes: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]
        guard writes.contains(method) ? rng.percent(85) : rng.percent(8) else { return nil }
        switch rng.below(8) {
        case 0: return ByteBuffer()
        case 1, 2: return ByteBuffer(bytes: rng.bytes(rng.size(max: 100_000)))
        case 3: return ByteBuffer(string: #"{"title":"fuzz","list":"inbox","n":\#(rng.int(-5...5))}"#)
        case 4:
            return ByteBuffer(
                string: rng.pick([
                    "{", "[1,2", "{\"a\":}", "null", "\"str\"", "{\"a\":1}}", "\u{FEFF}{}", "{\"a\":\"\u{0}\"}",
                ]))
        case 5:
            let depth = rng.pick([100, 1000, 10000])
            return ByteBuffer(string: String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        case 6:
            return ByteBuffer(string: "{\"big\":\"" + String(repeating: "x", count: rng.int(50_000...100_000)) + "\"}")
        default: return ByteBuffer(string: "a=1&b=2")
        }
    }
}
