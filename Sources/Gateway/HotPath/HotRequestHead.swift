import NIOHTTP1

/// What the hot path needs from a request's headers, read in one pass: the values it uses, and
/// whether anything makes it leave the request to the router — a header only the router
/// judges (`Origin`, `Cache-Control`, `Pragma`, a body, `Connection` other than `keep-alive`,
/// a second `Host`) or more or larger headers than `RequestLimitsMiddleware` allows.
struct HotRequestHead {
    var host: String?
    var authorization: String?
    var requestID: String?
    var ifNoneMatch: [String] = []
    /// The router answers this request.
    var passOn = false

    init(_ headers: HTTPHeaders) {
        var count = 0
        var bytes = 0
        for (name, value) in headers {
            count += 1
            bytes += RequestLimitsMiddleware.size(name: name, value: value)
            switch name.utf8.count {
            case 4 where Self.named(name, "host"):
                if host != nil { passOn = true }
                host = value
            case 6 where Self.named(name, "origin") || Self.named(name, "pragma"):
                passOn = true
            case 10 where Self.named(name, "connection"):
                if !Self.named(value, "keep-alive") { passOn = true }
            case 12 where Self.named(name, "x-request-id"):
                if requestID == nil { requestID = value }
            case 13 where Self.named(name, "cache-control"):
                passOn = true
            case 13 where Self.named(name, "authorization"):
                if authorization == nil { authorization = value }
            case 13 where Self.named(name, "if-none-match"):
                ifNoneMatch.append(value)
            case 14 where Self.named(name, "content-length"):
                if value != "0" { passOn = true }
            case 17 where Self.named(name, "transfer-encoding"):
                passOn = true
            default:
                break
            }
        }
        if !RequestLimitsMiddleware.withinLimits(count: count, bytes: bytes) { passOn = true }
    }

    /// `text` is `lowercase` (ASCII letters, digits and `-`), ignoring case.
    private static func named(_ text: String, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return text.utf8.count == expected.count
            && text.utf8.elementsEqual(expected) { byte, wanted in byte == wanted || (byte | 0x20) == wanted && wanted >= 0x61 }
    }
}
