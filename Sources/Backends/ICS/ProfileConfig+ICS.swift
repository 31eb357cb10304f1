import Model

extension ProfileConfig {
    /// This profile's `ics` section (its calendar subscriptions); nil when it has none.
    public var ics: ICSSettings? {
        get { self[ICSSettings.self] }
        set { self[ICSSettings.self] = newValue }
    }
}
