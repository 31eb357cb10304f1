import Model

/// What a `/v1/stream` was opened with: the client key that opened it (nil without keys) and
/// the profile it serves. A stream lasts for hours, so a reload that removes or changes the
/// key must end it, not leave it serving a client the config no longer knows.
struct StreamCredential: Sendable, Equatable {
    var key: String?
    var profile: String
    /// A `/v1/household/stream`: it also needs a household in the config and, with keys, the
    /// key's `household` scope.
    var household = false

    /// Whether `config` opens this stream as this profile still: the same key maps to the same
    /// profile, or (opened without keys) there are still no keys and the same default profile;
    /// for a household stream, the household is still there and the key still has its scope.
    /// A stream it does not is ended — not moved to another profile: ending is what a client
    /// can notice (it reconnects and is asked for its key again).
    func isAdmitted(by config: DaygateConfig) -> Bool {
        if household, config.household == nil { return false }
        guard let key else { return config.clients.isEmpty && config.defaultProfileName == profile }
        return config.clients.contains {
            $0.key == key && $0.profile == profile && (!household || $0.scopes.contains(.household))
        }
    }
}
