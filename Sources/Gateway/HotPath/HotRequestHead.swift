import NIOHTTP1

/// What the hot path needs from a request's headers, read in one pass: the values it uses, and
/// whether anything makes it leave the request to the router — a header only the router
/// judges (`Origin`, `Cache-Control`, `Pragma`, a body, `Connection` other than `keep-alive`,
/// a second `Host`); the bounds on headers are `Admission`'s to judge.
struct HotRequestHead {
    var host: String?
    var authorization: String?
    var requestID: String?
    var ifNoneMatch: [String] = []
    /// How many headers, and their size as `Admission` counts it.
    var count = 0
    var bytes = 0
    /// The router answers this request.
    var passOn = false

    init(_ headers: HTTPHeaders) {
        for (name, value) in headers {
            count += 1
            bytes += Admission.size(name: name, value: value)
            switch name.utf8.count {
            case 4 where name.isHeaderName("host"):
                if host != nil { passOn = true }
                host = value
            case 6 where name.isHeaderName("origin") || name.isHeaderName("pragma"):
                passOn = true
            case 10 where name.isHeaderName("connection"):
                if !value.isHeaderName("keep-alive") { passOn = true }
            case 12 where name.isHeaderName("x-request-id"):
                if requestID == nil { requestID = value }
            case 13 where name.isHeaderName("cache-control"):
                passOn = true
            case 13 where name.isHeaderName("authorization"):
                if authorization == nil { authorization = value }
            case 13 where name.isHeaderName("if-none-match"):
                ifNoneMatch.append(value)
            case 14 where name.isHeaderName("content-length"):
                if value != "0" { passOn = true }
            case 17 where name.isHeaderName("transfer-encoding"):
                passOn = true
            default:
                break
            }
        }
    }
}
