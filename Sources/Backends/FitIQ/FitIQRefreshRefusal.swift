/// What a refused refresh proves (docs/backends/fitiq.md, "A refused refresh"). FitIQ checks
/// `X-API-Key` on `/auth/*` too, so a mistyped or rotated key is refused there just as a spent
/// refresh token is, with the same statuses. Only an answer that names the refresh token
/// (`refresh token has been revoked`, the one message its clients' logs show; `invalid refresh
/// token`, `refresh token has expired`) proves the token spent; anything else is checked by a
/// call that needs the key and no token (`FitIQKeyProbe`) before a kept login is given up.
enum FitIQRefreshRefusal: Equatable, Sendable {
    /// The answer names the refresh token: it is spent, and may be deleted.
    case tokenSpent
    /// The answer does not say why (a wrong key, a proxy, a message not known here).
    case unexplained

    static func classify(status: Int, message: String?) -> Self {
        guard [400, 401, 403].contains(status), let message else { return .unexplained }
        return message.lowercased().contains("refresh token") ? .tokenSpent : .unexplained
    }
}

/// The answer to the key check: `GET /api/v1/foods/{an id no food has}`, a route that needs
/// `X-API-Key` and no Bearer token. A 404 (or any 2xx) means the key was accepted; a 401 or 403
/// that it was refused; anything else says nothing.
enum FitIQKeyProbe: Equatable, Sendable {
    case keyAccepted
    case keyRefused
    case unknown

    /// The food id asked for: the nil UUID, which no food has.
    static let path = "/api/v1/foods/00000000-0000-0000-0000-000000000000"

    static func classify(status: Int) -> Self {
        switch status {
        case 200..<300, 404: .keyAccepted
        case 401, 403: .keyRefused
        default: .unknown
        }
    }
}
