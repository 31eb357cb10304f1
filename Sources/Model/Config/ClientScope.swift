/// What a client key may do with its profile (`clients[].scopes`).
///
/// - `read`: the profile's own read routes (GET and HEAD).
/// - `write`: everything `read` may, and the writes (every other method): no write reaches a
///   backend with a key without it, whatever the route.
/// - `household`: the household routes (`/v1/household/…`), which read every member's day.
///
/// A key without `scopes` has `read` and `write` (what every key could do before scopes).
public enum ClientScope: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case read
    case write
    case household

    /// What a key without `scopes` may do.
    public static let defaults: Set<ClientScope> = [.read, .write]

    /// Loopback mode (no keys): the one user of the machine may do everything.
    public static let all = Set(allCases)

    public static func < (lhs: ClientScope, rhs: ClientScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Whether `scopes` reads a profile's own routes: `write` includes reading.
    public static func canRead(_ scopes: Set<ClientScope>) -> Bool {
        scopes.contains(.read) || scopes.contains(.write)
    }

    /// The scopes as written in the config, in a fixed order (`read, write, household`).
    public static func describe(_ scopes: Set<ClientScope>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
