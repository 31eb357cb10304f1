import Backends
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// How a failed write answers the client: the gateway's own refusals with their status; an
/// upstream refusal as `upstream_rejected` (scrubbed upstream message) with the status that
/// fits; a rate limit as 429 with `Retry-After`; an unreachable or failing backend as 502/504.
enum WriteError {
    static func gatewayError(for error: any Error) -> GatewayError {
        switch error {
        case let refusal as WriteRefusal:
            return GatewayError(.init(code: refusal.status), refusal.detail)
        case let detail as ErrorDetail:
            return GatewayError(.badRequest, detail)
        case let failure as BackendError:
            var headers = HTTPFields()
            if failure.kind == .rateLimited || failure.kind == .circuitOpen || failure.kind == .reauthBlocked
                || failure.kind == .reauthSuspected
            {
                // A 429 always says when to come back: the backend's wait, else a minute.
                if let wait = failure.retryAfter ?? (failure.kind == .rateLimited ? 60 : nil) {
                    headers[.retryAfter] = String(Int(wait.rounded(.up)))
                }
            }
            return GatewayError(
                status(for: failure), code: failure.kind.rawValue, message: failure.message, headers: headers)
        default:
            return GatewayError(.badGateway, code: "upstream_error", message: "the write failed; it was not retried")
        }
    }

    static func status(for failure: BackendError) -> HTTPResponse.Status {
        switch failure.kind {
        case .rejected:
            switch failure.status {
            case 401?: return .badGateway  // the gateway's credential was refused: its problem, not the client's
            case 403?: return .forbidden
            case 404?: return .notFound
            case 409?: return .conflict
            case 410?: return .gone
            default: return .unprocessableContent
            }
        case .rateLimited: return .tooManyRequests
        case .timeout: return .gatewayTimeout
        case .notConfigured, .notFound: return .notFound
        case .accessExpired: return .forbidden
        case .circuitOpen, .unavailable, .reauthBlocked, .reauthSuspected: return .serviceUnavailable
        case .unreachable, .status, .badResponse, .reauthRequired: return .badGateway
        }
    }
}

/// A backend write that failed: its answer to the client, and what the failure says about
/// whether the write happened (`IdempotencyPolicy.Outcome`) — which decides whether its
/// `Idempotency-Key` may send it again.
struct WriteFailed: HTTPResponseError {
    var answer: GatewayError
    var outcome: IdempotencyPolicy.Outcome

    init(_ error: any Error) {
        answer = WriteError.gatewayError(for: error)
        outcome = Self.outcome(of: error)
    }

    var status: HTTPResponse.Status { answer.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try answer.response(from: request, context: context)
    }

    static func outcome(of error: any Error) -> IdempotencyPolicy.Outcome {
        switch error {
        case is WriteRefusal, is ErrorDetail:
            return .refused
        case let failure as BackendError:
            switch failure.kind {
            case .rejected, .notFound: return .refused
            case .rateLimited, .circuitOpen, .unavailable, .reauthBlocked, .reauthSuspected, .reauthRequired,
                .notConfigured, .accessExpired:
                return .notDone
            // A 5xx may come after the write happened (a proxy's 502/504 once the app wrote; an
            // app failing after its insert): unless the call is known to have come before
            // anything was written (`mayHaveArrived` false), it may have happened.
            case .status, .timeout, .badResponse, .unreachable: return failure.mayHaveArrived ? .unknown : .notDone
            }
        default:
            return .unknown
        }
    }
}
