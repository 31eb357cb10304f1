import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Synchronization
import Testing
import Yams

struct RawFuzzOutcome: Sendable {
    enum End: Sendable {
        case closed, reset, timedOut, complete
        case connectFailed(Int32)
    }
    var data: [UInt8]
    var end: End
    var sendError: Int32?
    var milliseconds: Int
}

struct RawFuzzViolation: Sendable {
    var name: String
    var request: String
    var problem: String
    var answer: String
}

struct RawFuzzResult: Sendable {
    var cases = 0
    var violations: [RawFuzzViolation] = []
    var answered = 0
    var closed = 0
    var reset = 0
    var waited = 0
    var statuses: [Int: Int] = [:]
    var finalHealth = "not checked"

    var summary: String {
        "answered \(answered) (statuses \(statuses.keys.sorted().map { "\($0)×\(statuses[$0]!)" }.joined(separator: " "))), "
            + "closed \(closed), reset \(reset), left waiting (allowed) \(waited); final /healthz: \(finalHealth)"
    }

    func describe(seed: String) -> String {
        """
        \(violations.count) raw-socket violations in \(cases) requests (seed \(seed)):
        \(violations.prefix(20).map { "  \($0.name): \($0.problem) — request \($0.request) → \($0.answer)" }.joined(separator: "\n"))
        """
    }
}

/// Runs the raw cases one after another on a thread of its own (blocking sockets must not sit
/// on the cooperative pool: the simulators and the gateway under test run there).
enum RawFuzzRunner {
    static func run(port: Int, cases: [RawFuzzCase]) async -> RawFuzzResult {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: blockingRun(port: port, cases: cases)) }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    static func blockingRun(port: Int, cases: [RawFuzzCase]) -> RawFuzzResult {
        var result = RawFuzzResult()
        for (number, rawCase) in cases.enumerated() {
            result.cases += 1
            let wait = rawCase.expectAnswer ? 3000 : 300
            let bodyless =
                rawCase.bytes.starts(with: Array("HEAD ".utf8)) || rawCase.bytes.starts(with: Array("CONNECT ".utf8))
            let outcome = exchange(
                port: port, bytes: rawCase.bytes, waitMilliseconds: wait, headNoBody: rawCase.headNoBody,
                bodyless: bodyless)
            let requestText =
                fuzzShown(String(decoding: rawCase.bytes.prefix(120), as: UTF8.self), 120)
                + " (\(rawCase.bytes.count) bytes)"
            let answerText = fuzzShown(String(decoding: outcome.data.prefix(200), as: UTF8.self), 200)
            func violation(_ problem: String) {
                result.violations.append(
                    RawFuzzViolation(
                        name: rawCase.name, request: requestText, problem: problem,
                        answer: answerText.isEmpty ? "\(outcome.end)" : answerText))
            }
            if HTTPFuzzTests.trace {
                print(
                    "raw case \(number) \(rawCase.name): \(requestText) → \(outcome.end) in \(outcome.milliseconds) ms: \(answerText)"
                )
            }
            if case .connectFailed(let code) = outcome.end {
                violation("cannot connect (errno \(code)): is the server gone?")
                break
            }
            if outcome.data.isEmpty {
                switch outcome.end {
                case .closed: result.closed += 1
                case .reset: result.reset += 1
                default:
                    if rawCase.expectAnswer {
                        violation("neither an answer nor a close within \(wait) ms")
                    } else {
                        result.waited += 1
                    }
                }
            } else if let status = statusCode(outcome.data) {
                result.answered += 1
                result.statuses[status, default: 0] += 1
                if status >= 500, status != 502, status != 504 { violation("answered \(status)") }
                if status >= 400, !rawCase.headNoBody, !bodyless, !isJSONError(outcome.data) {
                    violation("answered \(status) without a JSON error body")
                }
                if rawCase.headNoBody, let headEnd = headerEnd(outcome.data), outcome.data.count > headEnd {
                    violation("HEAD answer followed by \(outcome.data.count - headEnd) body bytes")
                }
            } else {
                violation("answer is not an HTTP status line")
            }
            if number % 50 == 49 {
                let health = healthz(port: port)
                if health != "200 JSON" { violation("GET /healthz afterwards gave \(health)") }
            }
        }
        result.finalHealth = healthz(port: port)
        return result
    }

    static func healthz(port: Int) -> String {
        let outcome = exchange(
            port: port, bytes: Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
            waitMilliseconds: 3000, headNoBody: false)
        guard let status = statusCode(outcome.data), let headEnd = headerEnd(outcome.data) else {
            return "no answer (\(outcome.end))"
        }
        let body = Data(outcome.data[headEnd...])
        guard status == 200 else { return "\(status)" }
        return (try? JSONSerialization.jsonObject(with: body)) is [String: Any] ? "200 JSON" : "200 not JSON"
    }

    /// Whether the first answer in `data` carries `{"error":{"code",…}}` (within its
    /// Content-Length when it has one).
    static func isJSONError(_ data: [UInt8]) -> Bool {
        guard let end = headerEnd(data) else { return false }
        let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
        var body = Array(data[end...])
        if let length = contentLength(head), length <= body.count { body = Array(body.prefix(length)) }
        let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] is String
    }

    /// The Content-Length of an answer's head (lowercased), when it has one.
    static func contentLength(_ head: String) -> Int? {
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) else {
            return nil
        }
        return Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
    }

    static func statusCode(_ data: [UInt8]) -> Int? {
        let line = String(decoding: data.prefix(32), as: UTF8.self)
        guard line.hasPrefix("HTTP/1.1 ") || line.hasPrefix("HTTP/1.0 ") else { return nil }
        return Int(line.dropFirst(9).prefix(3))
    }

    static func headerEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4)
        where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// True when `data` holds one whole response (skipping 1xx): Content-Length met, a chunked
    /// body ended, or a status that has no body. Without framing, only a close completes it.
    static func isComplete(_ data: [UInt8], headNoBody: Bool, bodyless: Bool) -> Bool {
        var start = 0
        while true {
            let rest = Array(data[start...])
            guard let end = headerEnd(rest), let status = statusCode(rest) else { return false }
            let head = String(decoding: rest[..<end], as: UTF8.self).lowercased()
            if (100..<200).contains(status) {
                start += end
                continue
            }
            if headNoBody { return false }  // read to the close, to see any stray body bytes
            if status == 204 || status == 304 || bodyless { return true }  // HEAD/CONNECT answers carry no body
            if let length = contentLength(head) { return rest.count - end >= length }
            if head.contains("transfer-encoding: chunked") {
                return String(decoding: rest[end...].suffix(7), as: UTF8.self).hasSuffix("0\r\n\r\n")
            }
            return false
        }
    }

    static func exchange(port: Int, bytes: [UInt8], waitMilliseconds: Int, headNoBody: Bool, bodyless: Bool = false)
        -> RawFuzzOutcome
    {
        let started = ContinuousClock.now
        func elapsed() -> Int {
            let duration = ContinuousClock.now - started
            return Int(duration.components.seconds * 1000)
                + Int(duration.components.attoseconds / 1_000_000_000_000_000)
        }
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let noSignal = Int32(MSG_NOSIGNAL)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            let noSignal: Int32 = 0
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        guard fd >= 0 else { return RawFuzzOutcome(data: [], end: .connectFailed(errno), milliseconds: 0) }
        defer { close(fd) }
        var sendTimeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            return RawFuzzOutcome(data: [], end: .connectFailed(errno), milliseconds: elapsed())
        }

        var sendError: Int32?
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, noSignal) }
            if n <= 0 {
                sendError = errno
                break
            }
            sent += n
        }

        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = waitMilliseconds - elapsed()
            if remaining <= 0 {
                return RawFuzzOutcome(data: data, end: .timedOut, sendError: sendError, milliseconds: elapsed())
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining))
            if ready == 0 {
                return RawFuzzOutcome(data: data, end: .timedOut, sendError: sendError, milliseconds: elapsed())
            }
            if ready < 0 {
                if errno == EINTR { continue }
                return RawFuzzOutcome(data: data, end: .reset, sendError: sendError, milliseconds: elapsed())
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return RawFuzzOutcome(data: data, end: .closed, sendError: sendError, milliseconds: elapsed()) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return RawFuzzOutcome(data: data, end: .reset, sendError: sendError, milliseconds: elapsed())
            }
            data += buffer[0..<n]
            if data.count > 4 << 20 || isComplete(data, headNoBody: headNoBody, bodyless: bodyless) {
                return RawFuzzOutcome(data: data, end: .complete, sendError: sendError, milliseconds: elapsed())
            }
        }
    }
}
