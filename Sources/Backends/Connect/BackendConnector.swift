import Foundation
import Model

/// What `daygate connect <backend>` and `daygate check` need from a backend: how to get from a
/// person's login to a credential kept in the state directory's vault, how to list and remove
/// what was kept, and one cheap authenticated call per credential. Each backend's home holds its
/// own (`TickedifyConnect`, `KantineKoningConnect`, …); the CLI knows them only through this
/// protocol and `BackendCatalog`.
public protocol BackendConnector: Sendable {
    /// The backend's name (`tickedify`), the argument of `daygate connect`.
    var backend: String { get }

    /// One sentence: what connecting asks for and what it keeps.
    var summary: String { get }

    /// Asks what it needs through `context.prompt`, talks to the backend and keeps the result in
    /// `context.vault`; returns what to tell the person at the end.
    func connect(_ context: ConnectContext) async throws -> String

    /// The credentials kept for the profile, one line each (`--list`).
    func list(_ context: ConnectContext) async throws -> [String]

    /// Forgets the kept credential named `id` (`--remove`), telling the backend when it has a
    /// way to hear it; returns what to tell the person.
    func remove(_ id: String, context: ConnectContext) async throws -> String

    /// Whether the profile's credentials work: one cheap authenticated call each (`daygate check`).
    func check(_ context: OperationContext) async -> [CredentialCheck]

    /// The commented YAML of the backend's section for `daygate init` (its key first, no
    /// indentation), with `email` where the section names the account.
    func starterSection(email: String) -> [String]

    /// The commands to run after `daygate init` wrote its section.
    func nextSteps(configPath: String) -> [String]
}

extension BackendConnector {
    public func list(_ context: ConnectContext) async throws -> [String] {
        throw ConnectError("\(backend) keeps nothing that could be listed")
    }

    public func remove(_ id: String, context: ConnectContext) async throws -> String {
        throw ConnectError("\(backend) keeps nothing that could be removed")
    }

    public func check(_ context: OperationContext) async -> [CredentialCheck] { [] }

    public func nextSteps(configPath: String) -> [String] {
        ["daygate connect \(backend) --config \(configPath)"]
    }
}
