import Foundation
import Model

/// A failed upstream call, classified. Messages name the backend and what went wrong, never
/// a credential; upstream text is trimmed before it is shown.
public struct BackendError: UpstreamFailure, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No answer within the backend's timeout.
        case timeout = "upstream_timeout"
        /// Could not connect, or the connection was dropped.
        case unreachable = "upstream_unreachable"
        /// A 5xx (or an unexpected status).
        case status = "upstream_error"
        /// A 4xx: the backend refused the request.
        case rejected = "upstream_rejected"
        /// 429.
        case rateLimited = "upstream_rate_limited"
        /// The backend answered that the one thing asked for (an item, a barcode) does not
        /// exist: not a failure of the backend. A route of one section answers it as a 404.
        case notFound = "not_found"
        /// The body was not what the contract says (garbage, wrong shape, too large).
        case badResponse = "upstream_bad_response"
        /// The profile has no settings for this backend.
        case notConfigured = "not_configured"
        /// The backend refused the configured credentials: a person has to fix the config.
        case reauthRequired = "reauth_required"
        /// The account logs in but may not use the service (an ended trial or beta): a person has
        /// to upgrade it; logging in again does not help.
        case accessExpired = "upstream_access_expired"
        /// Logging in again is not allowed yet (rate limit); the gateway waits instead of retrying.
        case reauthBlocked = "reauth_blocked"
        /// A kept credential was not accepted, in an answer that does not prove it invalid (the
        /// backend answers an outage the same way): it is kept and tried again later; until
        /// then the gateway waits.
        case reauthSuspected = "reauth_suspected"
        /// The backend has a known bug on this route; the message says what is unavailable.
        case unavailable = "upstream_unavailable"
        /// Not called: the source failed repeatedly and its circuit is open (`CircuitBreaker`).
        case circuitOpen = "upstream_circuit_open"
    }

    public var kind: Kind
    public var backend: String
    public var message: String
    public var status: Int?
    public var retryAfter: Double?
    /// Whether the request may have reached the backend and been acted on — what a write needs
    /// to know before it may be sent again. No for a refused or timed-out connection and for a
    /// refusal the backend gave; yes when the connection was lost after the request went out,
    /// when no answer came in time, and for a 5xx (`.status`: it can come after the write was
    /// stored — a proxy's 502/504 once the app wrote, an app failing after its insert) unless the
    /// caller knows the call came before anything was written.
    public var mayHaveArrived: Bool

    public init(
        _ kind: Kind, backend: String, message: String, status: Int? = nil, retryAfter: Double? = nil,
        mayHaveArrived: Bool? = nil
    ) {
        self.kind = kind
        self.backend = backend
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.mayHaveArrived =
            mayHaveArrived ?? (kind == .timeout || kind == .badResponse || kind == .unreachable || kind == .status)
    }

    public var detail: ErrorDetail {
        ErrorDetail(code: kind.rawValue, message: message)
    }

    public var description: String { "\(kind.rawValue): \(message)" }

    /// Makes upstream text fit to show: credential-shaped parts redacted (`SecretRedactor`),
    /// control characters dropped, one line, at most 200 characters. The patterns run before
    /// the line breaks go (a header's value ends at its line's end) and once more after.
    public static func scrub(_ text: String) -> String {
        let printable = String(
            String.UnicodeScalarView(
                SecretRedactor.scrubPatterns(text).unicodeScalars.map {
                    $0.properties.generalCategory == .control || $0.properties.generalCategory == .format ? " " : $0
                }))
        let oneLine = SecretRedactor.scrubPatterns(printable).split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        return oneLine.count > 200 ? String(oneLine.prefix(200)) + "…" : oneLine
    }
}
