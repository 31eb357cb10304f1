import AsyncHTTPClient
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import NIOSSL

/// Every upstream call goes through here: the one shared AsyncHTTPClient, a per-call time
/// limit, a cap on the answer's size, no redirects (base URLs come only from the config),
/// errors classified into `BackendError`, and each source's circuit breaker, `Retry-After`
/// gate and counters (`UpstreamMonitor`).
public final class UpstreamHTTP: Sendable {
    public let client: HTTPClient
    public let maxResponseBytes: Int
    public let monitor: UpstreamMonitor
    /// Replaces the config's secrets in every non-2xx body before anyone reads it.
    public let redactor: SecretRedactor
    /// Bounded, jittered retries of idempotent reads; writes are sent once.
    public let retry: RetryPolicy
    private let ownsClient: Bool

    /// A client tuned for fan-out: many connections per host (the default 8 queues a fan-out
    /// under load) but a bounded number (each is a file descriptor the connection budget keeps
    /// free, `limits.upstream_connections_per_host`), idle connections kept `idleTimeout`
    /// (`limits.upstream_idle_timeout`: a far backend's new connection costs a TCP and a TLS
    /// handshake, two round trips, before the call's own), short connect timeout, no redirects,
    /// and the CAs of `trustedCAFile` trusted besides the system's (`limits.upstream_ca_file`;
    /// check it first with ``checkTrustedCAFile(_:)``).
    public static func makeClient(
        connectionsPerHost: Int = 64, idleTimeout: TimeInterval = 300, trustedCAFile: String? = nil
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        configuration.connectionPool.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        if let trustedCAFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustedCAFile)]
            configuration.tlsConfiguration = tls
        }
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(30))
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .ratio(20))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Why a `limits.upstream_ca_file` cannot be used.
    public struct TrustedCAError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads `path` as PEM certificates, so a wrong `limits.upstream_ca_file` stops the start with
    /// a clear message instead of failing every TLS handshake later.
    public static func checkTrustedCAFile(_ path: String) throws(TrustedCAError) {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw TrustedCAError(description: "limits.upstream_ca_file: \(path) cannot be read as PEM certificates")
        }
        guard !certificates.isEmpty else {
            throw TrustedCAError(description: "limits.upstream_ca_file: \(path) holds no certificate")
        }
    }

    public init(
        client: HTTPClient? = nil, connectionsPerHost: Int = 64, idleTimeout: TimeInterval = 300,
        trustedCAFile: String? = nil, maxResponseBytes: Int = 10 * 1_048_576,
        monitor: UpstreamMonitor = UpstreamMonitor(), redactor: SecretRedactor = SecretRedactor(),
        retry: RetryPolicy = .standard
    ) {
        self.retry = retry
        self.client =
            client
            ?? Self.makeClient(
                connectionsPerHost: connectionsPerHost, idleTimeout: idleTimeout, trustedCAFile: trustedCAFile)
        self.ownsClient = client == nil
        self.maxResponseBytes = maxResponseBytes
        self.monitor = monitor
        self.redactor = redactor
    }

    public func shutdown() async {
        if ownsClient {
            try? await client.shutdown()
        }
    }

    /// The most of a non-2xx body that is read: enough for any error message, little enough
    /// that redacting and reading it costs a bounded, small time whatever the backend sends.
    /// The rest is not read (the connection is closed).
    public static let maxErrorBodyBytes = 16 * 1024

    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: Data
        /// The body was cut at `maxErrorBodyBytes` (only ever a non-2xx one).
        public var bodyTruncated = false
        /// For a non-2xx answer: what `UpstreamHTTP.error(for:backend:)` makes of it, made once
        /// off the event loops (`UntrustedWork`); a status of its own (a caller's test) is read
        /// anew.
        var upstreamError: BackendError?

        public var isSuccess: Bool { (200..<300).contains(status) }
        /// `304 Not Modified`: the answer to a conditional request whose copy is still current
        /// (not an error).
        public var isNotModified: Bool { status == 304 }
    }

    /// Sends a request for `source` and returns whatever status came back — a GET that found
    /// the backend unreachable or answering 502/503/504 is tried again (`RetryPolicy`); throws only when
    /// there is no usable HTTP answer (timeout, connection failure, oversized body) or when the
    /// source may not be called now (open circuit, `Retry-After` running). With `gate` false a
    /// 429's `Retry-After` does not hold back the source's other calls (a login limit is not a
    /// data limit; `AuthSession` keeps that one). With `notFoundIsAnswer` a 404 is the backend's
    /// answer about the thing asked for (an item that does not exist), not a failure of the
    /// source: the monitor counts it as a good answer. `maximumBytes` (at most the client's
    /// `maxResponseBytes`) stops reading a larger body as it arrives.
    public func send(
        _ method: HTTPMethod = .GET, url: String, headers: [(String, String)] = [], body: Data? = nil,
        timeout: TimeInterval, source: UpstreamSource, gate: Bool = true, notFoundIsAnswer: Bool = false,
        maximumBytes: Int? = nil
    ) async throws -> Response {
        try await send(
            method, url: url, headers: headers, body: body, timeout: timeout, source: source, gate: gate, retry: retry,
            notFoundIsAnswer: notFoundIsAnswer, maximumBytes: maximumBytes
        )
    }

    /// `send` with this call's own retry policy instead of the client's (`.none`: a call that
    /// must not go out twice without the caller deciding so, such as a Tickedify planning call).
    public func send(
        _ method: HTTPMethod = .GET, url: String, headers: [(String, String)] = [], body: Data? = nil,
        timeout: TimeInterval, source: UpstreamSource, gate: Bool = true, retry: RetryPolicy,
        notFoundIsAnswer: Bool = false, maximumBytes: Int? = nil
    ) async throws -> Response {
        let maximumBytes = min(maximumBytes ?? maxResponseBytes, maxResponseBytes)
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var attempt = 0
        while true {
            let remaining = deadline - ContinuousClock.now
            let budget = max(0.05, remaining.seconds)
            let outcome: Result<Response, BackendError>
            do {
                outcome = .success(
                    try await attemptOnce(
                        method, url: url, headers: headers, body: body, timeout: budget, source: source, gate: gate,
                        notFoundIsAnswer: notFoundIsAnswer, maximumBytes: maximumBytes))
            } catch let error as BackendError {
                outcome = .failure(error)
            }
            let retryable =
                switch outcome {
                case .success(let response): retry.allows(method: method, response: response, attempt: attempt)
                case .failure(let error): retry.allows(method: method, failure: error, attempt: attempt)
                }
            attempt += 1
            // A retry only when it can still finish inside the call's own time limit (the
            // pause drawn only for a retry: a random draw is a system call).
            guard retryable else { return try outcome.get() }
            let pause = retry.pause(before: attempt)
            guard ContinuousClock.now + pause + retry.minimumAttempt < deadline else {
                return try outcome.get()
            }
            try await Task.sleep(for: pause)
        }
    }

    /// One exchange, told to the monitor (which may refuse it: open circuit, `Retry-After`).
    private func attemptOnce(
        _ method: HTTPMethod, url: String, headers: [(String, String)], body: Data?, timeout: TimeInterval,
        source: UpstreamSource, gate: Bool, notFoundIsAnswer: Bool, maximumBytes: Int
    ) async throws -> Response {
        try monitor.admit(source)
        let started = ContinuousClock.now
        do {
            var response = try await exchange(
                method, url: url, headers: headers, body: body, timeout: timeout, backend: source.backend,
                maximumBytes: maximumBytes)
            let answered = response.isSuccess || response.isNotModified
            if !answered {
                // What the body costs to read is the backend's to decide: not on the loops.
                let redactor = self.redactor
                let raw = response
                let backend = source.backend
                response = await UntrustedWork.run {
                    var redacted = raw
                    redacted.body = redactor.redact(raw.body, truncated: raw.bodyTruncated)
                    redacted.upstreamError = Self.makeError(for: redacted, backend: backend)
                    return redacted
                }
            }
            let expected = answered || (notFoundIsAnswer && response.status == 404)
            let error = expected ? nil : Self.error(for: response, backend: source.backend)
            monitor.record(
                source, .answered(status: response.status, retryAfter: error?.retryAfter, error: error?.detail),
                duration: ContinuousClock.now - started, gate: gate
            )
            return response
        } catch let error as BackendError {
            monitor.record(source, .failed(error), duration: ContinuousClock.now - started)
            throw error
        } catch {
            monitor.record(source, .abandoned, duration: ContinuousClock.now - started)
            throw error
        }
    }

    private func exchange(
        _ method: HTTPMethod, url: String, headers: [(String, String)], body: Data?, timeout: TimeInterval,
        backend: String, maximumBytes: Int
    ) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if !headers.contains(where: { $0.0.lowercased() == "accept" }) {
            request.headers.add(name: "Accept", value: "application/json")
        }
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        for (name, value) in headers {
            request.headers.add(name: name, value: value)
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        // Written into a message only when the call fails.
        var seconds: String { Self.describe(timeout) }
        // The call's time limit covers the body too: AsyncHTTPClient's deadline ends with the
        // head, and a body trickled a few bytes at a time never trips its read timeout.
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            let status = Int(response.status.code)
            let answered = (200..<300).contains(status) || status == 304
            let limit = answered ? maximumBytes : min(maximumBytes, Self.maxErrorBodyBytes)
            let (body, truncated) = try await BoundedWait.run(until: deadline) {
                try await Self.read(response.body, upTo: limit, refuseMore: answered)
            }
            return Response(status: status, headers: response.headers, body: body, bodyTruncated: truncated)
        } catch BoundedWait.Ended.deadlinePassed {
            throw BackendError(
                .timeout, backend: backend, message: "\(backend) did not finish its answer in \(seconds)")
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                throw BackendError(.timeout, backend: backend, message: "\(backend) did not answer in \(seconds)")
            case .connectTimeout:
                throw BackendError(
                    .unreachable, backend: backend, message: "could not connect to \(backend) in time",
                    mayHaveArrived: false)
            case .remoteConnectionClosed:
                throw BackendError(
                    .unreachable, backend: backend, message: "\(backend) closed the connection without answering")
            case .cancelled:
                throw CancellationError()
            default:
                let reason = Self.reason(for: error)
                throw BackendError(
                    .unreachable, backend: backend, message: "\(backend) could not be reached (\(reason))",
                    mayHaveArrived: !Self.neverConnected.contains(reason)
                )
            }
        } catch is NIOTooManyBytesError {
            let limit =
                maximumBytes % 1_048_576 == 0 ? "\(maximumBytes / 1_048_576) MB" : "\(maximumBytes) bytes"
            throw BackendError(.badResponse, backend: backend, message: "\(backend) sent more than \(limit)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let reason = Self.reason(for: error)
            throw BackendError(
                .unreachable, backend: backend, message: "\(backend) could not be reached (\(reason))",
                mayHaveArrived: !Self.neverConnected.contains(reason)
            )
        }
    }

    /// At most `limit` bytes of `body`: more is refused (`NIOTooManyBytesError`) when
    /// `refuseMore`, else cut there (the rest is not read; the connection is closed).
    static func read(_ body: HTTPClientResponse.Body, upTo limit: Int, refuseMore: Bool) async throws -> (
        Data, truncated: Bool
    ) {
        var data = Data()
        for try await chunk in body {
            let room = limit - data.count
            if chunk.readableBytes > room {
                if refuseMore { throw NIOTooManyBytesError(maxBytes: limit) }
                data.append(contentsOf: chunk.readableBytesView.prefix(room))
                return (data, true)
            }
            data.append(contentsOf: chunk.readableBytesView)
        }
        return (data, false)
    }

    /// `reason(for:)`s that mean no connection was made: nothing was sent.
    static let neverConnected: Set<String> = ["connection refused", "host unreachable"]

    /// Turns a non-2xx answer into a `BackendError` with the upstream's own message (FastAPI
    /// `detail` as a string or array, `error`, `message`), trimmed.
    public static func error(for response: Response, backend: String) -> BackendError {
        if let made = response.upstreamError, made.backend == backend, made.status == response.status { return made }
        return makeError(for: response, backend: backend)
    }

    static func makeError(for response: Response, backend: String) -> BackendError {
        let upstreamMessage = UpstreamErrorMessage.extract(from: response.body)
        let suffix = upstreamMessage.map { ": \($0)" } ?? ""
        let retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds(from: $0) }
        switch response.status {
        case 429:
            return BackendError(
                .rateLimited, backend: backend, message: "\(backend) is rate limiting (429)\(suffix)", status: 429,
                retryAfter: retryAfter)
        case 400..<500:
            return BackendError(
                .rejected, backend: backend, message: "\(backend) refused the request (\(response.status))\(suffix)",
                status: response.status)
        default:
            return BackendError(
                .status, backend: backend, message: "\(backend) answered \(response.status)\(suffix)",
                status: response.status, retryAfter: retryAfter)
        }
    }

    /// What every upstream call says it is.
    static let userAgent = "daygate/\(DaygateVersion.current)"

    /// "500 ms", "2 s", "1.5 s": a duration for messages.
    public static func describe(_ seconds: TimeInterval) -> String {
        seconds < 1
            ? "\(Int((seconds * 1000).rounded())) ms"
            : (seconds.rounded() == seconds ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds))
    }

    /// A short reason for a transport failure, without addresses or other details.
    static func reason(for error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("ECONNREFUSED") || text.localizedCaseInsensitiveContains("connection refused") {
            return "connection refused"
        }
        if text.contains("ECONNRESET") || text.localizedCaseInsensitiveContains("reset by peer") {
            return "connection reset"
        }
        if text.contains("EHOSTUNREACH") || text.contains("ENETUNREACH") { return "host unreachable" }
        if text.localizedCaseInsensitiveContains("closed") { return "connection closed" }
        return String(text.prefix { $0.isLetter || $0 == " " }.prefix(40))
    }
}
