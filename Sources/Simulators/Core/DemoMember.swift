/// The demo household's members besides Anna, whose `default` profile has every backend. Each
/// simulator's demo entry says which of them have an account of their own there
/// (``DemoSimulator/memberSettings(_:for:)``); the demo's household gives each member a profile
/// of just those sections.
public enum DemoMember: String, CaseIterable, Sendable {
    case bas
    case mila

    /// The member's name as the household shows it.
    public var name: String {
        switch self {
        case .bas: "Bas"
        case .mila: "Mila"
        }
    }

    /// The member's colour on the wall.
    public var colour: String {
        switch self {
        case .bas: "#15803d"
        case .mila: "#be185d"
        }
    }
}
