import Model

extension ProfileConfig {
    /// This profile's `eightalls` section; nil when it does not configure the backend.
    public var eightalls: EightAllsSettings? {
        get { self[EightAllsSettings.self] }
        set { self[EightAllsSettings.self] = newValue }
    }
}
