import Model

/// Faults a simulator injects into every request that is not under `/_sim/`.
///
/// JSON form (all keys optional when decoding; `{}` clears every fault):
/// ```json
/// {"latency_ms": 0, "error_status": null, "error_rate": 1.0, "error_after": false, "down": null,
///  "garbage": false, "method": null, "hostile_body": null}
/// ```
/// `method` (e.g. `"PUT"`) limits every fault to requests of that method; null: all of them.
/// They apply in this order:
/// 1. `latency_ms`: the request waits this long first.
/// 2. `down`: `"reset"` aborts the TCP connection with an RST (SO_LINGER 0) without answering;
///    `"refuse"` closes the connection (FIN) without answering. A true "connection refused"
///    cannot be simulated because the port must stay open for `/_sim/faults`.
/// 3. `error_status` with `error_rate` (0...1, default 1.0): answers that status with FastAPI's
///    shape `{"detail":"simulated failure"}` for that fraction of requests. An injected 429 also
///    carries `Retry-After: 60` (``retryAfterSeconds``, what PRSNL's slowapi sends) unless the
///    backend's own answer has one. With `error_after` the request is handled first — a write
///    is done — and the error answered instead of its answer: a proxy that answers 502/504 after
///    the app wrote, or an app that fails after its insert (PRSNL's capture commits no
///    transaction around its steps).
/// 4. `garbage`: answers 200 with `content-type: application/json` and a body that is not JSON.
/// 5. `hostile_body` (``HostileBody``): the answer's body is one a gateway must survive — with
///    `error_status` the error answer carries it, without it a 200 does.
public struct SimulatorFaults: Codable, Sendable, Equatable {
    /// Delay before anything else happens, in milliseconds.
    public var latencyMs: Int
    /// Status to answer instead of the real response; nil = off.
    public var errorStatus: Int?
    /// Fraction (0...1) of requests that get `errorStatus`.
    public var errorRate: Double
    /// Answer `errorStatus` after the backend handled the request (its write is done), not
    /// instead of handling it.
    public var errorAfter: Bool
    /// nil, `"refuse"` (close without answering) or `"reset"` (TCP RST without answering).
    public var down: String?
    /// Answer 200 with a non-JSON body (`<html>oops{`) labelled `application/json`.
    public var garbage: Bool
    /// The only method the faults apply to (`PUT`: a write times out, the read before it does
    /// not); nil = every method.
    public var method: String?
    /// A body made to cost its reader (see ``HostileBody``); nil = the ordinary body.
    public var hostileBody: HostileBody?

    /// The value of ``down`` that closes connections without an answer.
    public static let refuse = "refuse"
    /// The value of ``down`` that resets connections (RST) without an answer.
    public static let reset = "reset"
    /// `Retry-After` of an injected 429 (seconds).
    public static let retryAfterSeconds = 60
    /// Body sent when ``garbage`` is on.
    public static let garbageBody = "<html>oops{"

    public init(
        latencyMs: Int = 0, errorStatus: Int? = nil, errorRate: Double = 1.0, errorAfter: Bool = false,
        down: String? = nil,
        garbage: Bool = false,
        method: String? = nil, hostileBody: HostileBody? = nil
    ) {
        self.latencyMs = latencyMs
        self.errorStatus = errorStatus
        self.errorRate = errorRate
        self.errorAfter = errorAfter
        self.down = down
        self.garbage = garbage
        self.method = method
        self.hostileBody = hostileBody
    }

    /// The faults for a request of `method`: these, or none when they are limited to another.
    public func applying(to method: String) -> SimulatorFaults {
        guard let only = self.method, only.uppercased() != method.uppercased() else { return self }
        return .off
    }

    /// No faults at all.
    public static let off = SimulatorFaults()

    /// True when no fault is active.
    public var isOff: Bool { latencyMs == 0 && errorStatus == nil && down == nil && !garbage && hostileBody == nil }

    enum CodingKeys: String, CodingKey {
        case latencyMs = "latency_ms"
        case errorStatus = "error_status"
        case errorRate = "error_rate"
        case errorAfter = "error_after"
        case down
        case garbage
        case method
        case hostileBody = "hostile_body"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.latencyMs = try c.decodeIfPresent(Int.self, forKey: .latencyMs) ?? 0
        self.errorStatus = try c.decodeIfPresent(Int.self, forKey: .errorStatus)
        self.errorRate = try c.decodeIfPresent(Double.self, forKey: .errorRate) ?? 1.0
        self.errorAfter = try c.decodeIfPresent(Bool.self, forKey: .errorAfter) ?? false
        self.down = try c.decodeIfPresent(String.self, forKey: .down)
        self.garbage = try c.decodeIfPresent(Bool.self, forKey: .garbage) ?? false
        self.method = try c.decodeIfPresent(String.self, forKey: .method)
        self.hostileBody = try c.decodeIfPresent(HostileBody.self, forKey: .hostileBody)
        if let problem = self.validationProblem {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latencyMs, forKey: .latencyMs)
        try c.encode(errorStatus, forKey: .errorStatus)
        try c.encode(errorRate, forKey: .errorRate)
        try c.encode(errorAfter, forKey: .errorAfter)
        try c.encode(down, forKey: .down)
        try c.encode(garbage, forKey: .garbage)
        try c.encode(method, forKey: .method)
        try c.encode(hostileBody, forKey: .hostileBody)
    }

    /// Why these faults are not usable, or nil when they are.
    public var validationProblem: String? {
        if latencyMs < 0 || latencyMs > 600_000 { return "latency_ms must be between 0 and 600000" }
        if let status = errorStatus, !(100...599).contains(status) {
            return "error_status must be an HTTP status (100-599)"
        }
        if !(0.0...1.0).contains(errorRate) { return "error_rate must be between 0 and 1" }
        if let down, down != Self.refuse, down != Self.reset { return "down must be null, \"refuse\" or \"reset\"" }
        return nil
    }

    /// Ordered JSON for the `/_sim/faults` endpoint.
    var json: JSONValue {
        .object([
            "latency_ms": .int(latencyMs),
            "error_status": errorStatus.map(JSONValue.int) ?? .null,
            "error_rate": .double(errorRate),
            "error_after": .bool(errorAfter),
            "down": down.map(JSONValue.string) ?? .null,
            "garbage": .bool(garbage),
            "method": method.map(JSONValue.string) ?? .null,
            "hostile_body": hostileBody.map { JSONValue.string($0.rawValue) } ?? .null,
        ])
    }
}
