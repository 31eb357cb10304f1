import Model

/// What a `/v1/stream` was opened with: the client key that opened it (nil without keys) and
/// the profile it serves. A stream lasts for hours, so a reload that removes or changes the
/// key must end it, not leave it serving a client the config no longer knows.
struct StreamCredential: Sendable, Equatable {
    var key: String?
    var profile: String

    /// Whether `config` opens this stream as this profile still: the same key maps to the same
    /// profile, or (opened without keys) there are still no keys and the same default profile.
    /// A stream it does not is ended — not moved to another profile: ending is what a client
    /// can notice (it reconnects and is asked for its key again).
    func isAdmitted(by config: DaygateConfig) -> Bool {
        guard let key else { return config.clients.isEmpty && config.defaultProfileName == profile }
        return config.clients.contains { $0.key == key && $0.profile == profile }
    }
}
