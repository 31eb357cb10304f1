import Foundation
import Model

/// Every error code Kantine Koning's enrollment calls answer with, as a sentence a person
/// understands (the app maps the same codes to its own texts). Unknown codes fall back to the
/// server's own `message`, else to what the HTTP status means.
public enum KantineKoningErrorSentence {
    /// The sentence for `code` (`error` of the answer), `reason` (of a `token_revoked`), the
    /// server's `message` and the HTTP status.
    public static func sentence(code: String?, reason: String? = nil, message: String? = nil, status: Int) -> String {
        switch code {
        case "team_manager_not_found":
            return "That e-mail address is not known as a team manager of the chosen teams at this club. "
                + "Use the address the club has for you, or connect as a member without e-mail."
        case "invalid_team_codes":
            return "The club does not know (one of) the chosen teams; pick them again from the club's list."
        case "enrollment_limit_exceeded":
            return "This device follows too many teams already (at most 5 across all clubs); remove one first "
                + "(`daygate connect kantinekoning --remove …`)."
        case "tenant_not_found":
            return "Kantine Koning does not know that club; search for it again."
        case "invalid_email":
            return "That is not a valid e-mail address."
        case "enrollment_expired":
            return "The enrollment link has expired; run `daygate connect kantinekoning` again to get a new one."
        case "device_already_enrolled":
            return "This device is already enrolled for these teams at this club; nothing needs to be done."
        case "team_access_denied":
            return "This enrollment may not do that for the team (only its team managers may)."
        case "invalid_or_expired_token":
            return "The enrollment link or token is not valid (any more): links work once and expire; "
                + "ask for a new one by running `daygate connect kantinekoning` again."
        case "team_conflict":
            return "One of the chosen teams conflicts with an enrollment this device already has "
                + "(for instance as manager and as member); remove that one first."
        case "enrollment_failed":
            return "Kantine Koning could not complete the enrollment; try again later."
        case "enrollment_closed":
            let detail = message.map { " The club says: \(BackendError.scrub($0))" } ?? ""
            return "The club does not accept new enrollments right now (for instance because its season has ended)."
                + detail
        case "token_revoked":
            return reason == "season_ended"
                ? "The club's season has ended; its enrollments stop until the next season."
                : "The club withdrew this enrollment\(reason.map { " (\($0))" } ?? ""); connect again if you should still have it."
        case "invalid_token":
            return "Kantine Koning does not accept this enrollment's token; connect again."
        case "device_not_found":
            return "Kantine Koning no longer knows this enrollment (it was removed); connect again if you need it."
        default:
            if let message, !message.isEmpty { return "Kantine Koning said: \(BackendError.scrub(message))" }
            switch status {
            case 400: return "Kantine Koning did not understand the request (HTTP 400)."
            case 401: return "Kantine Koning did not accept the credentials (HTTP 401)."
            case 403: return "Kantine Koning does not allow this (HTTP 403)."
            case 404: return "Kantine Koning does not know what was asked for (HTTP 404)."
            case 422: return "Kantine Koning refused the values given (HTTP 422)."
            case 500...599: return "Kantine Koning has a problem of its own (HTTP \(status)); try again later."
            default: return "Kantine Koning answered HTTP \(status)."
            }
        }
    }

    /// The sentence for a failed answer's body and status.
    public static func sentence(body: Data, status: Int) -> String {
        let value = try? JSONValue(parsing: body)
        return sentence(
            code: value?["error"]?.stringValue, reason: value?["reason"]?.stringValue,
            message: value?["message"]?.stringValue, status: status)
    }

    /// Every code the enrollment calls are known to answer with.
    public static let knownCodes = [
        "team_manager_not_found", "invalid_team_codes", "enrollment_limit_exceeded", "tenant_not_found",
        "invalid_email", "enrollment_expired", "device_already_enrolled", "team_access_denied",
        "invalid_or_expired_token", "team_conflict", "enrollment_failed", "enrollment_closed", "token_revoked",
        "invalid_token", "device_not_found",
    ]
}
