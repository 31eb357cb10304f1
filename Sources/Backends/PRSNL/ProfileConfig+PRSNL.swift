import Model

extension ProfileConfig {
    /// This profile's `prsnl` section; nil when it does not configure the backend.
    public var prsnl: PRSNLSettings? {
        get { self[PRSNLSettings.self] }
        set { self[PRSNLSettings.self] = newValue }
    }
}
