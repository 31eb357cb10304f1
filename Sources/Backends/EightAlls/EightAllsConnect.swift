import Model

/// `daygate connect eightalls`: 8alls has no login, so there is nothing to keep.
public struct EightAllsConnect: BackendConnector {
    public init() {}

    public var backend: String { EightAllsSettings.backend }

    public var summary: String { "8alls needs no login: its section names only the server (base_url)" }

    public func connect(_ context: ConnectContext) async throws -> String {
        "8alls needs nothing: it has no login. Its section in the config only names the server "
            + "(`eightalls: {base_url: …}`), and nothing is kept in the vault."
    }

    public func starterSection(email: String) -> [String] {
        [
            "eightalls:                   # the family calendar; no login",
            "  base_url: https://8alls-api.fly.dev/api",
        ]
    }

    public func nextSteps(configPath: String) -> [String] { [] }
}
