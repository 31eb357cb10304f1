import Model

extension ProfileConfig {
    /// This profile's `kantinekoning` section; nil when it does not configure the backend.
    public var kantinekoning: KantineKoningSettings? {
        get { self[KantineKoningSettings.self] }
        set { self[KantineKoningSettings.self] = newValue }
    }
}
