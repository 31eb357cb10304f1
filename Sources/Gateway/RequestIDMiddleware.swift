import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Model
import Synchronization

/// Gives each request an id (the client's `X-Request-Id` when it is sane, else a new one),
/// puts it on every log line of the request and on the answer, and logs one access line.
public struct RequestIDMiddleware: RouterMiddleware {
    public typealias Context = GatewayRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        let incoming = request.headers[.requestID]
        let id = incoming.flatMap { Self.isSane($0) ? $0 : nil } ?? Self.newID()
        context.requestID = id
        context.logger[metadataKey: "request_id"] = .string(id)
        let started = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = id
            log(request, status: response.status.code, started: started, context: context)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: error.status.code, started: started, context: context)
            if let gatewayError = error as? GatewayError {
                var withID = gatewayError
                withID.headers[.requestID] = id
                throw withID
            }
            throw error
        }
    }

    private func log(_ request: Request, status: Int, started: ContinuousClock.Instant, context: Context) {
        Self.logAccess(context.logger, method: request.method, path: request.uri.path, status: status, started: started)
    }

    /// The access line: `GET /v1/today` with the status and the time taken.
    static func logAccess(
        _ logger: Logger, method: HTTPRequest.Method, path: String, status: Int, started: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.milliseconds
        logger.info(
            "\(method) \(path)",
            metadata: [
                "status": "\(status)", "duration_ms": "\(String(format: "%.1f", milliseconds))",
            ])
    }

    static func isSane(_ value: String) -> Bool {
        value.count <= 64 && !value.isEmpty
            && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// A new id, `xxxxxxxx-xxxx` (48 bits, lowercase hex): a random start for the process plus
    /// a counter, scrambled (SplitMix64), so ids do not repeat within a run and need no
    /// system random call per request.
    static func newID() -> String {
        var bits = splitMix(idSeed &+ idCounter.add(1, ordering: .relaxed).newValue) & 0xFFFF_FFFF_FFFF
        return String(unsafeUninitializedCapacity: 13) { bytes in
            for index in [12, 11, 10, 9, 7, 6, 5, 4, 3, 2, 1, 0] {
                let digit = UInt8(truncatingIfNeeded: bits & 0xF)
                bytes[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                bits >>= 4
            }
            bytes[8] = UInt8(ascii: "-")
            return 13
        }
    }

    private static let idSeed = UInt64.random(in: .min ... .max)
    private static let idCounter = Atomic<UInt64>(0)

    private static func splitMix(_ value: UInt64) -> UInt64 {
        var mixed = value &+ 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-Id")!
}
