import Cache
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Model

/// `Idempotency-Key` on a POST: the key is reserved in SQLite (per profile) *before* the write
/// is sent, and the answer recorded after it, for 24 h; a retry with the same key and request
/// gets that answer again (`Idempotent-Replayed: true`) without writing twice; the same key with
/// a different request is a 422; a retry while the first is still running is a 409, and so is
/// one whose first write was sent but never answered (the gateway stopped, the backend did not
/// answer): it may have happened (`IdempotencyPolicy`).
///
/// Storage failures never make a write happen twice nor hide one that happened: a reservation
/// that cannot be stored (disk full, database locked, read-only state folder) sends nothing and
/// answers 503 with `Retry-After`; an answer that cannot be recorded after the backend did the
/// write still goes to the client (with `Daygate-Warning`), and the key then answers retries
/// with "outcome unknown".
actor IdempotencyGuard {
    static let maximumAge: TimeInterval = 24 * 3600
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!
    static let warning = HTTPField.Name("Daygate-Warning")!
    /// How long a client waits before trying a write the storage could not take.
    static let storageRetryAfter = 30

    let database: CacheDatabase
    let logger: Logger
    /// Keys whose write this process is sending right now.
    private var running: Set<String> = []

    init(database: CacheDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Runs `write` at most once per key; `write` returns the status and JSON body to send.
    func run(
        request: Request, profile: String, body: Data, write: @Sendable () async throws -> (HTTPResponse.Status, Data)
    ) async throws -> Response {
        guard let key = request.headers[Self.header] else {
            let (status, answer) = try await write()
            return JSONResponse.make(status: status, body: answer)
        }
        guard !key.isEmpty, key.count <= 255, key.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\0" }) else {
            throw GatewayError(
                .badRequest, code: "bad_request", message: "Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        let hash = Self.hash(method: request.method, path: request.uri.path, body: body)
        let slot = profile + "\u{0}" + key
        // Marked before the store is asked (which suspends): a second request with the key in
        // this process is "in flight", never mistaken for a write a crash left behind.
        guard running.insert(slot).inserted else {
            throw Self.refusal(.inFlight, record: nil)
        }
        defer { running.remove(slot) }

        let stored: CacheDatabase.IdempotencyRecord?
        do {
            stored = try await database.reserveIdempotencyKey(
                profile: profile, key: key, requestHash: hash, maximumAge: Self.maximumAge
            )
        } catch {
            logger.error("write refused: its Idempotency-Key could not be reserved", metadata: ["error": "\(error)"])
            throw GatewayError(
                .serviceUnavailable, code: "storage_unavailable",
                message:
                    "the gateway cannot record this write before sending it (\(database.storageHealth.lastFailure?.reason ?? "storage failed")); nothing was sent, try again later",
                headers: [.retryAfter: String(Self.storageRetryAfter)]
            )
        }
        if let stored {
            let state: IdempotencyPolicy.Stored =
                stored.state == .answered
                ? .answered(requestHash: stored.requestHash)
                : .reserved(requestHash: stored.requestHash, running: false)
            let decision = IdempotencyPolicy.before(state, requestHash: hash)
            guard decision == .replay else { throw Self.refusal(decision, record: stored) }
            return JSONResponse.make(
                status: .init(code: stored.status), body: stored.body, headers: [Self.replayed: "true"])
        }

        // Reserved: send it once.
        let status: HTTPResponse.Status
        let answer: Data
        let outcome: IdempotencyPolicy.Outcome
        var failure: (any Error)?
        do {
            (status, answer) = try await write()
            outcome = .done
        } catch {
            failure = error
            outcome = Self.outcome(of: error)
            let refusal = Self.answer(of: error)
            status = refusal?.status ?? .internalServerError
            answer = refusal.flatMap { try? JSONCoding.encode(ErrorBody($0.detail)) } ?? Data()
        }
        var headers: HTTPFields = [:]
        do {
            switch IdempotencyPolicy.after(outcome) {
            case .record:
                try await database.recordIdempotentAnswer(profile: profile, key: key, status: status.code, body: answer)
            case .release:
                try await database.releaseIdempotencyKey(profile: profile, key: key)
            case .keepReservation:
                logger.warning(
                    "a write's outcome is unknown; its Idempotency-Key answers retries with 409",
                    metadata: ["status": "\(status.code)"])
            }
        } catch {
            logger.error(
                "the outcome of a write could not be recorded",
                metadata: ["error": "\(error)", "status": "\(status.code)"])
            headers[Self.warning] =
                "the gateway could not record this answer (\(database.storageHealth.lastFailure?.reason ?? "storage failed")); a retry with this Idempotency-Key answers 409"
        }
        if let failure {
            guard var refusal = Self.answer(of: failure) else { throw failure }
            for field in headers { refusal.headers.append(field) }
            throw refusal
        }
        return JSONResponse.make(status: status, body: answer, headers: headers)
    }

    /// The request a key was first used for: method, path and body.
    static func hash(method: HTTPRequest.Method, path: String, body: Data) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("\(method) \(path)\n".utf8))
        hasher.update(data: body)
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// How a write's failure leaves it: refused for good, not done, or perhaps done.
    static func outcome(of error: any Error) -> IdempotencyPolicy.Outcome {
        if let failed = error as? WriteFailed { return failed.outcome }
        guard let answer = error as? GatewayError else { return .unknown }
        // The gateway's own refusals (bad input, before anything was sent).
        return answer.status.code == 429 || answer.status.code >= 500 ? .notDone : .refused
    }

    /// The JSON error a failure answers with.
    static func answer(of error: any Error) -> GatewayError? {
        (error as? WriteFailed)?.answer ?? error as? GatewayError
    }

    static func refusal(_ decision: IdempotencyPolicy.Before, record: CacheDatabase.IdempotencyRecord?) -> GatewayError
    {
        switch decision {
        case .keyReused:
            return GatewayError(
                .unprocessableContent, code: "idempotency_key_reused",
                message: "this Idempotency-Key was used for a different request")
        case .inFlight:
            return GatewayError(
                .conflict, code: "idempotency_key_in_flight",
                message: "a request with this Idempotency-Key is still running")
        case .outcomeUnknown:
            let when = record.map { " at \(LenientDate.format($0.createdAt, in: .gmt))" } ?? ""
            return GatewayError(
                .conflict, code: "idempotency_outcome_unknown",
                message:
                    "a write with this Idempotency-Key was sent\(when), but its outcome was never recorded (the gateway stopped, or the backend did not answer): it may have happened. Look at the data it would have changed before sending it again with a new key"
            )
        case .reserve, .replay:
            return GatewayError(
                .internalServerError, code: "internal", message: "the gateway failed to answer; see its log")
        }
    }
}
