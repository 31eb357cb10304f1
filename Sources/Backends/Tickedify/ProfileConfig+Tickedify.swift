import Model

extension ProfileConfig {
    /// This profile's `tickedify` section; nil when it does not configure the backend.
    public var tickedify: TickedifySettings? {
        get { self[TickedifySettings.self] }
        set { self[TickedifySettings.self] = newValue }
    }
}
