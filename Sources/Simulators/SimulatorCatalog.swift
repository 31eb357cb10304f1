/// The one list of simulators the demo and `daygate simulate` start, in port order: simulator
/// `n` of the list listens on the port base + `n`. Adding a backend's simulator is one line here
/// (and its folder, which declares its ``DemoSimulator`` entry), as adding the backend itself is
/// one line in the gateway's `BackendCatalog`.
public enum SimulatorCatalog {
    public static let all: [DemoSimulator] = [
        .tickedify,
        .eightalls,
        .kantinekoning,
        .fitiq,
        .prsnl,
        .ics,
    ]

    /// The entry for `kind`, if the catalog lists it.
    public static func entry(_ kind: SimulatorKind) -> DemoSimulator? {
        all.first { $0.kind == kind }
    }
}
