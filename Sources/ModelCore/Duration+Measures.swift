extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, as a floating-point number (for logs and reports).
    public var milliseconds: Double { seconds * 1000 }
}
