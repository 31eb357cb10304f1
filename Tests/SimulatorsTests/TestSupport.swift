import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import Simulators

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The seeded week every test uses: Monday 2026-11-23 in Amsterdam (UTC+1 in November).
let testSeedDay = "2026-11-23"
let testTimeZone = TimeZone(identifier: "Europe/Amsterdam")!

struct SimResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: String

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) }
    var array: [[String: Any]] { (json as? [[String: Any]]) ?? [] }
    var object: [String: Any] { (json as? [String: Any]) ?? [:] }
    var titles: [String] { array.compactMap { $0["title"] as? String } }
}

/// Starts a simulator with `start`, runs `body` with it and an HTTP client, and always stops both.
/// The client is a fresh one that does not follow redirects (shut down afterwards), or with
/// `sharedClient` `HTTPClient.shared` (default configuration, never shut down).
func withSimulator(
    sharedClient: Bool = false,
    start: () async throws -> RunningSimulator,
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    let sim = try await start()
    let client =
        sharedClient
        ? HTTPClient.shared
        : HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        )
    do {
        try await body(sim, client)
    } catch {
        if !sharedClient { try? await client.shutdown() }
        await sim.stop()
        throw error
    }
    if !sharedClient { try await client.shutdown() }
    await sim.stop()
}

/// Starts an 8alls simulator on the test week; see ``withSimulator(sharedClient:start:_:)``.
func withEightAlls(
    dateStyle: EightAllsSimulator.DateStyle = .zulu,
    _ body: (RunningSimulator, HTTPClient) async throws -> Void
) async throws {
    let options = EightAllsSimulator.Options(dateStyle: dateStyle, seedDay: testSeedDay, timeZone: testTimeZone)
    try await withSimulator(start: { try await EightAllsSimulator(options: options).start() }, body)
}

/// Polls `condition` every 10 ms until it holds; after `timeout` records an issue and returns.
/// (For "the request has reached the server": a fixed pause is too short on a busy machine.)
func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

extension HTTPClient {
    /// Sends one request; `path` is appended verbatim to the simulator's base URL.
    func send(_ sim: RunningSimulator, _ path: String) async throws -> SimResponse {
        try await send(.GET, sim, path)
    }

    func send(
        _ method: HTTPMethod,
        _ sim: RunningSimulator,
        _ path: String,
        json: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> SimResponse {
        var request = HTTPClientRequest(url: sim.baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                request.headers.add(name: "content-type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 4 * 1024 * 1024)
        return SimResponse(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }
}

/// What a bare TCP client sees after sending one request.
enum RawOutcome: Equatable {
    case answered(String)
    case closed  // orderly FIN, no bytes
    case reset  // ECONNRESET
    case other(Int32)
}

/// Sends a raw HTTP/1.1 request and reports how the server reacted. The blocking socket runs
/// on a thread of its own: blocking one of the two cooperative threads would stall the very
/// simulators the tests wait on.
func rawExchange(port: Int, request: String) async -> RawOutcome {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: blockingRawExchange(port: port, request: request)) }.start()
    }
}

/// A blocking TCP socket connected to 127.0.0.1:`port` (receives time out after 5 s), or the
/// `errno` of what failed.
func connectedSocket(port: Int) -> Result<Int32, RawSocketError> {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return .failure(RawSocketError(errno: errno)) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        let failure = RawSocketError(errno: errno)
        close(fd)
        return .failure(failure)
    }
    return .success(fd)
}

struct RawSocketError: Error {
    var errno: Int32
}

private func blockingRawExchange(port: Int, request: String) -> RawOutcome {
    let fd: Int32
    switch connectedSocket(port: port) {
    case .success(let socket): fd = socket
    case .failure(let failure): return .other(failure.errno)
    }
    defer { close(fd) }
    let bytes = Array(request.utf8)
    guard send(fd, bytes, bytes.count, 0) == bytes.count else { return .other(errno) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let n = recv(fd, &buffer, buffer.count, 0)
    if n > 0 { return .answered(String(decoding: buffer[0..<n], as: UTF8.self)) }
    if n == 0 { return .closed }
    return errno == ECONNRESET ? .reset : .other(errno)
}
