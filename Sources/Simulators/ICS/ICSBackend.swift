import Foundation
import Hummingbird
import Model

/// A static-file style calendar server: feeds by path, validators, conditional GET, per-feed auth.
struct ICSBackend: SimulatorBackend {
    let store: ICSStore
    /// The shared call counts, for `/_sim/calls` and `/_sim/reset`.
    let control: SimulatorControl

    static let contentType = "text/calendar; charset=utf-8"
    static let cacheControl = "private, max-age=0, must-revalidate"

    func handle(_ request: SimRequest) async -> Response {
        let response = answer(request)
        store.record("\(request.method.rawValue) \(request.path)", status: Int(response.status.code))
        // HEAD: the headers of the GET answer (its Content-Length included), never a body.
        return request.method == .head ? response.createHeadResponse() : response
    }

    /// Plain text, like the web server in front of a feed.
    func faultResponse(status: Int) -> Response {
        .plainText("simulated failure", status: status)
    }

    private func answer(_ request: SimRequest) -> Response {
        guard let feed = store.feed(atPath: request.path) else {
            return .plainText("Not Found", status: 404)
        }
        guard request.method == .get || request.method == .head else {
            var response = Response.plainText("Method Not Allowed", status: 405)
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        if let refusal = Self.authRefusal(feed.auth, request.headers[.authorization]) {
            return refusal
        }
        let etag = ICSFeed.etag(feed.body)
        var headers: HTTPFields = [
            .eTag: etag, .lastModified: Civil.httpDate(feed.lastModified), .cacheControl: Self.cacheControl,
        ]
        if Self.notModified(request.headers, etag: etag, lastModified: feed.lastModified) {
            return Response(
                status: .init(code: 304, reasonPhrase: reasonPhrase(304)), headers: headers, body: .init())
        }
        headers[.contentType] = Self.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: feed.body)))
    }

    // MARK: - Auth

    /// The 401 for a request that does not satisfy `auth`, or nil when it does.
    static func authRefusal(_ auth: ICSSimulator.Auth, _ authorization: String?) -> Response? {
        let (scheme, credentials) = splitAuthorization(authorization)
        switch auth {
        case .anonymous:
            return nil
        case .basic(let user, let password):
            if scheme == "basic", let decoded = Data(base64Encoded: credentials),
                String(decoding: decoded, as: UTF8.self) == "\(user):\(password)"
            {
                return nil
            }
            return unauthorized(#"Basic realm="VV Amstelland agenda", charset="UTF-8""#)
        case .bearer(let token):
            if scheme == "bearer", credentials == token { return nil }
            return unauthorized(
                scheme == "bearer" ? #"Bearer realm="calendar", error="invalid_token""# : #"Bearer realm="calendar""#)
        }
    }

    /// (lowercased scheme, the rest trimmed) of an `Authorization` value; ("", "") when absent.
    private static func splitAuthorization(_ value: String?) -> (String, String) {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return ("", "") }
        guard let space = value.firstIndex(of: " ") else { return (value.lowercased(), "") }
        return (
            value[..<space].lowercased(), value[value.index(after: space)...].trimmingCharacters(in: .whitespaces)
        )
    }

    private static func unauthorized(_ challenge: String) -> Response {
        var response = Response.plainText("Unauthorized", status: 401)
        response.headers[.wwwAuthenticate] = challenge
        return response
    }

    // MARK: - Conditional requests (RFC 9110 section 13)

    /// Whether a GET or HEAD gets 304: `If-None-Match` decides when present (weak comparison, `*`
    /// matches); otherwise an `If-Modified-Since` (IMF-fixdate) at or after `lastModified`.
    static func notModified(_ headers: HTTPFields, etag: String, lastModified: Int64) -> Bool {
        let noneMatch = headers[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            let tags = noneMatch.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return tags.contains { $0 == "*" || weakTag($0) == weakTag(etag) }
        }
        guard let since = headers[.ifModifiedSince], let date = Civil.parseHTTPDate(since) else { return false }
        return lastModified <= date
    }

    private static func weakTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    // MARK: - Control routes

    var controlRoutes: [String] {
        [
            "GET /_sim/calendars", "GET /_sim/calendars/<name>", "POST /_sim/calendars/<name>",
            "DELETE /_sim/calendars/<name>", "GET /_sim/calls",
            "GET /_sim/options", "POST /_sim/options", "POST /_sim/reset",
        ]
    }

    func handleControl(_ request: SimRequest) async -> Response? {
        let prefix = "/_sim/calendars/"
        if request.path.hasPrefix(prefix) {
            let name = String(request.path.dropFirst(prefix.count))
            guard ICSStore.isValidName(name) else {
                return .simError("calendar names are 1-64 of a-z, 0-9, - and _", status: 404)
            }
            switch request.method {
            case .get:
                guard let feed = store.feed(named: name) else { return .simError("no calendar '\(name)'", status: 404) }
                return .json(feed.json)
            case .post, .put:
                guard request.body.readableBytes > 0 else {
                    return .simError("expected the raw ICS body; DELETE removes a calendar")
                }
                let feed = store.replace(name, body: String(buffer: request.body))
                return .json(feed.json)
            case .delete:
                guard store.delete(name) else { return .simError("no calendar '\(name)'", status: 404) }
                return .json(.object(["deleted": .string(name)]))
            default:
                return nil
            }
        }
        switch (request.method, request.path) {
        case (.get, "/_sim/calendars"):
            return .json(.array(store.feeds.map(\.json)))
        case (.get, "/_sim/calls"):
            return .json(callsJSON)
        case (.get, "/_sim/options"):
            return .json(optionsJSON)
        case (.post, "/_sim/options"), (.put, "/_sim/options"):
            guard case .object(let o) = JSONValue.parse(request.body.readableBytesView) else {
                return .simError("expected a JSON object like {\"ics_malformed\":true}")
            }
            if let value = o["ics_malformed"] {
                guard case .bool(let on) = value else { return .simError("ics_malformed must be true or false") }
                store.malformed = on
            }
            return .json(optionsJSON)
        case (.post, "/_sim/reset"):
            store.reset()
            control.resetStats()
            return .json(.object(["calendars": .int(store.feeds.count)]))
        default:
            return nil
        }
    }

    private var optionsJSON: JSONValue {
        .object([
            "seed_day": .string(store.options.seedDay),
            "time_zone": .string(store.options.timeZone.identifier),
            "ics_malformed": .bool(store.malformed),
        ])
    }

    /// `{"calls":{…},"not_modified":{…},"statuses":{…},"total":N}`, keys sorted.
    private var callsJSON: JSONValue {
        let calls = control.callCounts.sorted { $0.key < $1.key }
        let statuses = store.statuses.sorted { $0.key < $1.key }
        return .object([
            "calls": .object(JSONObject(fields: calls.map { ($0.key, .int($0.value)) })),
            "not_modified": .object(
                JSONObject(
                    fields: statuses.compactMap { key, counts in counts[304].map { (key, JSONValue.int($0)) } })),
            "statuses": .object(
                JSONObject(
                    fields: statuses.map { key, counts in
                        (
                            key,
                            .object(
                                JSONObject(
                                    fields: counts.sorted { $0.key < $1.key }.map { (String($0.key), .int($0.value)) }))
                        )
                    })),
            "total": .int(control.totalCalls),
        ])
    }
}
