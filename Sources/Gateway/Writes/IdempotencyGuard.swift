import Cache
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// `Idempotency-Key` on a POST: the first request with a key is executed and its answer kept
/// for 24 h in SQLite (per profile); a retry with the same key and the same request gets that
/// answer again (`Idempotent-Replayed: true`) without writing twice; the same key with a
/// different request is a 422; a retry while the first is still running is a 409. Answers
/// that say nothing about whether the write happened (5xx) are not kept, nor is a 429 (nothing
/// was written; the client is told to come back): both can be retried with the same key.
actor IdempotencyGuard {
    static let maximumAge: TimeInterval = 24 * 3600
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    let database: CacheDatabase
    private var inFlight: Set<String> = []

    init(database: CacheDatabase) {
        self.database = database
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
            throw GatewayError(.badRequest, code: "bad_request", message: "Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method) \(request.uri.path)\n".utf8))
        hasher.update(data: body)
        let hash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let slot = profile + "\u{0}" + key
        if let kept = try database.idempotentAnswer(profile: profile, key: key, maximumAge: Self.maximumAge) {
            guard kept.requestHash == hash else {
                throw GatewayError(.unprocessableContent, code: "idempotency_key_reused", message: "this Idempotency-Key was used for a different request")
            }
            return JSONResponse.make(status: .init(code: kept.status), body: kept.body, headers: [Self.replayed: "true"])
        }
        guard inFlight.insert(slot).inserted else {
            throw GatewayError(.conflict, code: "idempotency_key_in_flight", message: "a request with this Idempotency-Key is still running")
        }
        defer { inFlight.remove(slot) }
        do {
            let (status, answer) = try await write()
            try database.storeIdempotentAnswer(.init(requestHash: hash, status: status.code, body: answer, createdAt: Date()), profile: profile, key: key)
            return JSONResponse.make(status: status, body: answer)
        } catch let error as GatewayError where (400..<500).contains(error.status.code) && error.status.code != 429 {
            let body = (try? JSONCoding.encode(ErrorBody(error.detail))) ?? Data()
            try? database.storeIdempotentAnswer(.init(requestHash: hash, status: error.status.code, body: body, createdAt: Date()), profile: profile, key: key)
            throw error
        }
    }
}
