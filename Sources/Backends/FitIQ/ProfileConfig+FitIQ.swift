import Model

extension ProfileConfig {
    /// This profile's `fitiq` section; nil when it does not configure the backend.
    public var fitiq: FitIQSettings? {
        get { self[FitIQSettings.self] }
        set { self[FitIQSettings.self] = newValue }
    }
}
