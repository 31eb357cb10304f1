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

// MARK: - Part 2: raw requests

struct RawFuzzCase: Sendable {
    var name: String
    var bytes: [UInt8]
    /// False when the server may rightly wait for more bytes (an unfinished head or body).
    var expectAnswer = true
    /// A HEAD with `Connection: close`: nothing may follow the header block.
    var headNoBody = false
}

enum RawFuzzCases {
    static func make(seed: UInt64) -> [RawFuzzCase] {
        var cases = fixed()
        var rng = SplitMix64(seed: seed ^ 0x5A0C_E7)
        for number in 0..<240 { cases.append(random(&rng, number: number)) }
        return cases
    }

    static func text(_ name: String, _ text: String, expectAnswer: Bool = true) -> RawFuzzCase {
        RawFuzzCase(name: name, bytes: Array(text.utf8), expectAnswer: expectAnswer)
    }

    static let host = "Host: 127.0.0.1\r\n"

    static func fixed() -> [RawFuzzCase] {
        let long64 = String(repeating: "a", count: 64 * 1024)
        let uri100 = "/v1/" + String(repeating: "b", count: 100 * 1024)
        let manyHeaders = (0..<500).map { "X-H\($0): \($0)\r\n" }.joined()
        var cases: [RawFuzzCase] = [
            text("garbage line", "GARBAGE\r\n\r\n"),
            text("binary garbage", "\u{1}\u{2}\u{3}\u{FF}\r\n\r\n"),
            text("only CRLFs", "\r\n\r\n\r\n\r\n", expectAnswer: false),
            text("method only", "GET\r\n\r\n"),
            text("HTTP/0.9 style", "GET /healthz\r\n\r\n"),
            text("version 9.9", "GET /healthz HTTP/9.9\r\n\(host)\r\n"),
            text("version 1.1.1", "GET /healthz HTTP/1.1.1\r\n\(host)\r\n"),
            text("version 2.0", "GET /healthz HTTP/2.0\r\n\(host)\r\n"),
            text("version lowercase", "GET /healthz http/1.1\r\n\(host)\r\n"),
            text("version garbage", "GET /healthz HTXP/1.1\r\n\(host)\r\n"),
            text("HTTP/1.0 no host", "GET /healthz HTTP/1.0\r\n\r\n"),
            text("h2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
            text("double spaces", "GET  /healthz  HTTP/1.1\r\n\(host)\r\n"),
            text("tab separators", "GET\t/healthz\tHTTP/1.1\r\n\(host)\r\n"),
            text("lowercase method", "get /healthz HTTP/1.1\r\n\(host)\r\n"),
            text("unknown method", "FOO /healthz HTTP/1.1\r\n\(host)\r\n"),
            text("10 KB method", String(repeating: "G", count: 10_000) + " / HTTP/1.1\r\n\(host)\r\n"),
            text("missing host", "GET /healthz HTTP/1.1\r\n\r\n"),
            text("missing host on a route", "GET /v1/today HTTP/1.1\r\n\r\n"),
            text("two hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
            text("empty host", "GET /healthz HTTP/1.1\r\nHost:\r\n\r\n"),
            text("foreign host", "GET /v1/summary HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
            text(
                "dup content-length same",
                "POST /healthz HTTP/1.1\r\n\(host)Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"),
            text(
                "dup content-length differ",
                "POST /healthz HTTP/1.1\r\n\(host)Content-Length: 2\r\nContent-Length: 5\r\n\r\n{}"),
            text("content-length list", "POST /healthz HTTP/1.1\r\n\(host)Content-Length: 2, 2\r\n\r\n{}"),
            text("content-length negative", "POST /healthz HTTP/1.1\r\n\(host)Content-Length: -1\r\n\r\n"),
            text("content-length letters", "POST /healthz HTTP/1.1\r\n\(host)Content-Length: abc\r\n\r\n"),
            text(
                "content-length huge", "POST /healthz HTTP/1.1\r\n\(host)Content-Length: 99999999999999999999\r\n\r\n"),
            text(
                "content-length 1 GB",
                "POST /v1/today HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{}",
                expectAnswer: false),
            text(
                "content-length short body", "POST /v1/today HTTP/1.1\r\n\(host)Content-Length: 100\r\n\r\n{}",
                expectAnswer: false),
            text(
                "content-length long body",
                "GET /healthz HTTP/1.1\r\n\(host)Content-Length: 2\r\n\r\n{}GARBAGE AFTER\r\n\r\n"),
            text("get with body", "GET /v1/today HTTP/1.1\r\n\(host)Content-Length: 5\r\n\r\nhello"),
            text(
                "cl and te",
                "POST /healthz HTTP/1.1\r\n\(host)Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            text(
                "te garbage chunk size",
                "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
            text(
                "te negative chunk",
                "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"),
            text(
                "te huge chunk",
                "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nhello\r\n0\r\n\r\n"
            ),
            text(
                "te chunk extension garbage",
                "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5;\u{0}=\"\r\nhello\r\n0\r\n\r\n"),
            text(
                "te unterminated", "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
                expectAnswer: false),
            text(
                "te gzip chunked", "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
            text(
                "te chunked twice",
                "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
            text("te xchunked", "POST /healthz HTTP/1.1\r\n\(host)Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
            text("te on HTTP/1.0", "POST /healthz HTTP/1.0\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            text("64 KB header", "GET /healthz HTTP/1.1\r\n\(host)X-Big: \(long64)\r\n\r\n"),
            text("64 KB header name", "GET /healthz HTTP/1.1\r\n\(host)\(long64): x\r\n\r\n"),
            text("500 headers", "GET /healthz HTTP/1.1\r\n\(host)\(manyHeaders)\r\n"),
            text("500 headers on a route", "GET /v1/summary HTTP/1.1\r\n\(host)\(manyHeaders)\r\n"),
            text("header without colon", "GET /healthz HTTP/1.1\r\n\(host)NoColonHere\r\n\r\n"),
            text("space before colon", "GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n"),
            text("obs-fold", "GET /healthz HTTP/1.1\r\n\(host)X-Fold: a\r\n b\r\n\r\n"),
            text("NUL in header value", "GET /healthz HTTP/1.1\r\n\(host)X-Nul: a\u{0}b\r\n\r\n"),
            text("NUL in header name", "GET /healthz HTTP/1.1\r\n\(host)X-\u{0}Nul: a\r\n\r\n"),
            text("NUL in request line", "GET /heal\u{0}thz HTTP/1.1\r\n\(host)\r\n"),
            text("NUL in method", "G\u{0}ET /healthz HTTP/1.1\r\n\(host)\r\n"),
            text("bare LF", "GET /healthz HTTP/1.1\n\(host.replacingOccurrences(of: "\r", with: ""))\n"),
            text("bare CR", "GET /healthz HTTP/1.1\rHost: x\r\r", expectAnswer: false),
            text("100 KB URI", "GET \(uri100) HTTP/1.1\r\n\(host)\r\n"),
            text(
                "100 KB query", "GET /v1/today?q=\(String(repeating: "q", count: 100 * 1024)) HTTP/1.1\r\n\(host)\r\n"),
            text("10 KB URI", "GET /v1/\(String(repeating: "c", count: 10 * 1024)) HTTP/1.1\r\n\(host)\r\n"),
            text("absolute-form", "GET http://evil.example/healthz HTTP/1.1\r\n\(host)\r\n"),
            text("absolute-form to a route", "GET http://127.0.0.1/v1/summary HTTP/1.1\r\n\(host)\r\n"),
            text("authority-form", "CONNECT localhost:80 HTTP/1.1\r\n\(host)\r\n"),
            text("asterisk-form", "OPTIONS * HTTP/1.1\r\n\(host)\r\n"),
            text("no leading slash", "GET healthz HTTP/1.1\r\n\(host)\r\n"),
            text("raw high bytes in URI", "GET /v1/\u{FF}\u{FE}%ZZ HTTP/1.1\r\n\(host)\r\n"),
            text(
                "expect 100-continue",
                "POST /v1/today HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
                expectAnswer: false),
            text(
                "upgrade websocket",
                "GET /healthz HTTP/1.1\r\n\(host)Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ),
            text(
                "upgrade h2c",
                "GET /healthz HTTP/1.1\r\n\(host)Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n"
            ),
            text(
                "pipelined",
                "GET /healthz HTTP/1.1\r\n\(host)\r\nGET /readyz HTTP/1.1\r\n\(host)\r\nGET /nope HTTP/1.1\r\n\(host)\r\n"
            ),
            text("pipelined garbage second", "GET /healthz HTTP/1.1\r\n\(host)\r\nGARBAGE\r\n\r\n"),
            text("unfinished head", "GET /healthz HTTP/1.1\r\n\(host)", expectAnswer: false),
            text("unfinished request line", "GET /heal", expectAnswer: false),
            text("connection close", "GET /healthz HTTP/1.1\r\n\(host)Connection: close\r\n\r\n"),
            text(
                "connection garbage",
                "GET /healthz HTTP/1.1\r\n\(host)Connection: \u{1}\u{2}, keep-alive, close\r\n\r\n"),
            text("stream with POST", "POST /v1/stream HTTP/1.1\r\n\(host)Content-Length: 0\r\n\r\n"),
            text("dot-dot path", "GET /../../../etc/passwd HTTP/1.1\r\n\(host)\r\n"),
            text("encoded dot-dot path", "GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n\(host)\r\n"),
            text("write no content-type", "POST /v1/today HTTP/1.1\r\n\(host)Content-Length: 2\r\n\r\n{}"),
            text(
                "write 1 MB",
                "PUT /v1/today HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n"
                    + String(repeating: "x", count: 1_048_576)),
        ]
        for path in ["/healthz", "/nope", "/v1/today", "/v1/summary", "/metrics", "/openapi.json"] {
            cases.append(
                RawFuzzCase(
                    name: "HEAD \(path) has no body",
                    bytes: Array("HEAD \(path) HTTP/1.1\r\n\(host)Connection: close\r\n\r\n".utf8), headNoBody: true
                ))
        }
        return cases
    }

    /// A well-formed request with one to three hostile mutations, so most of them get past
    /// the HTTP parser and reach the gateway's own middleware and handlers.
    static func random(_ rng: inout SplitMix64, number: Int) -> RawFuzzCase {
        var method = rng.pick(["GET", "GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
        var target = rng.pick([
            "/healthz", "/readyz", "/v1/today", "/v1/events?date=2026-02-30",
            "/v1/events?from=2026-01-01&to=2026-01-03", "/v1/tasks?list=%zz",
            "/v1/summary", "/v1/sources", "/metrics", "/openapi.json", "/", "*", "/v1/../healthz", "/%00",
            "/v1/today?date=%01",
            "/v1/ü", "/v1/today#frag", "/v1/diensten?future_days=-1", "/v1/knowledge/search?q=swift",
            "/v1/tasks/counts", "/nope",
        ])
        var version = "HTTP/1.1"
        var headers = [host, "User-Agent: fuzz\r\n"]
        var body: [UInt8] = []
        var expectAnswer = true
        if method == "POST" || method == "PUT" || method == "PATCH" {
            headers.append("Content-Type: application/json\r\n")
            body = Array(#"{"title":"fuzz"}"#.utf8)
            headers.append("Content-Length: \(body.count)\r\n")
        }
        for _ in 0..<rng.int(1...3) {
            switch rng.below(20) {
            case 0:
                method = rng.pick([
                    "G ET", "", "\u{0}", "GETGETGET", "get", "TRACE", "CONNECT", "M-SEARCH",
                    String(repeating: "X", count: 5000),
                ])
            case 1:
                version = rng.pick([
                    "HTTP/1.0", "HTTP/1.2", "HTTP/2", "", "HTTP/1.1 extra", "HTTP/01.1", "http/1.1", "HTTP/1.1\u{0}",
                ])
            case 2:
                target = rng.pick([
                    "", "//", "/v1/" + String(repeating: "z", count: rng.int(1000...120_000)), "/\u{7F}", "/a b", "/%",
                    "http://evil.example/healthz",
                ])
            case 3:
                headers[0] = rng.pick([
                    "", "Host: evil.example\r\n", "Host: \r\n", "Host: a\r\nHost: b\r\n", "Host: localhost\r\n",
                    "Host: [::1]:1\r\n",
                ])
            case 4: headers.append("X-Junk: \(rng.string("abc\t ", count: rng.int(0...70_000)))\r\n")
            case 5: headers += (0..<rng.int(50...600)).map { "X-N\($0): \($0)\r\n" }
            case 6:
                headers.append(
                    rng.pick([
                        "X-Nul: a\u{0}b\r\n", "X-\u{0}: a\r\n", "X-Ctl: \u{1}\u{7F}\r\n", "X-High: \u{FF}\u{FE}\r\n",
                    ]))
            case 7:
                headers.append(
                    rng.pick([" folded\r\n", "NoColon\r\n", ": empty name\r\n", "Bad Name: x\r\n", "X-Y :z\r\n"]))
            case 8:
                headers.append(
                    "Content-Length: \(rng.pick(["0", "5", "-3", "x", "18446744073709551616", "1, 2", "0x10", "+4", " 4"]))\r\n"
                )
                expectAnswer = false
            case 9:
                headers.append(
                    "Transfer-Encoding: \(rng.pick(["chunked", "chunked, chunked", "gzip", "identity", "CHUNKED", "chunked\u{0}"]))\r\n"
                )
                body = Array(
                    rng.pick([
                        "5\r\nhello\r\n0\r\n\r\n", "zz\r\n\r\n", "5\r\nhel", "0\r\n\r\n", "-1\r\nx\r\n",
                        "5;ext=\"\u{0}\"\r\nhello\r\n0\r\n\r\n",
                    ]).utf8)
                expectAnswer = false
            case 10:
                body += rng.bytes(rng.size(max: 70_000))
                expectAnswer = false
            case 11:
                headers.append(
                    "Authorization: Bearer \(String(repeating: "k", count: rng.pick([0, 10, 9000, 40000])))\r\n")
            case 12:
                headers.append(
                    rng.pick([
                        "Cache-Control: no-cache\r\n", "If-None-Match: *\r\n", "If-None-Match: W/\"x\", \"\r\n",
                        "Pragma: no-cache\r\n",
                    ]))
            case 13:
                headers.append(
                    rng.pick([
                        "Origin: https://evil.example\r\n", "Origin: null\r\nAccess-Control-Request-Method: POST\r\n",
                    ]))
            case 14:
                headers.append(
                    rng.pick([
                        "Connection: close\r\n", "Connection: keep-alive, Upgrade\r\nUpgrade: h2c\r\n",
                        "Expect: 100-continue\r\n", "Connection: \u{1}\r\n",
                    ]))
            case 15:
                headers.append(
                    "Content-Type: \(rng.pick(["text/plain", "", "application/json; charset=\u{0}", "multipart/form-data"]))\r\n"
                )
            case 16:
                headers.append("X-Request-Id: \(rng.string("ab\u{1}\u{7F} %\u{FF}", count: rng.int(0...9000)))\r\n")
            case 17:
                headers = headers.map { $0.replacingOccurrences(of: "\r\n", with: rng.pick(["\n", "\r", "\r\r\n"])) }
            case 18: body += Array("GET /healthz HTTP/1.1\r\n\(host)\r\n".utf8)  // pipelined follower
            default:
                headers.append(
                    "Accept-Encoding: \(rng.pick(["gzip", "br;q=2", "*;q=-1", String(repeating: "x,", count: 3000)]))\r\n"
                )
            }
        }
        // GET /v1/stream is an endless stream: never ask for it.
        if target.lowercased().contains("stream") { target = "/healthz" }
        let head = "\(method) \(target) \(version)\r\n" + headers.joined() + "\r\n"
        return RawFuzzCase(name: "random #\(number)", bytes: Array(head.utf8) + body, expectAnswer: expectAnswer)
    }
}
