import Foundation
import Model

/// A lease kept in the credential vault, so that one single-use refresh token is spent by one
/// process at a time: the gateway and `daygate check` (or `daygate connect`) open the same state
/// database, and in-process single-flight (`AuthSession`) does not reach across them. The holder
/// writes its own id (its process's and the call's) and an end into the vault's row `name`; another
/// process waits until the row is gone, its end has passed or its holder's process is gone (one
/// killed while it held the lease), polling, and never longer than `wait`.
struct VaultLease: Sendable {
    let vault: any CredentialVault
    let profile: String
    let backend: String
    let name: String
    /// How long a holder may keep the lease before another may take it over.
    var hold: Duration = .seconds(60)
    /// How long to wait for the lease before giving up.
    var wait: Duration = .seconds(30)
    var poll: Duration = .milliseconds(50)

    /// Runs `body` holding the lease; throws `reauth_suspected` (nothing spent, tried again later)
    /// when the lease did not come within `wait`.
    func run<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        let holder = VaultLeaseValue.holder(call: UUID().uuidString)
        let deadline = ContinuousClock.now + wait
        while true {
            let until = Date().addingTimeInterval(hold.seconds)
            if try await vault.takeLease(
                holder, until: until, now: Date(), profile: profile, backend: backend, name: name)
            {
                break
            }
            guard ContinuousClock.now + poll < deadline else {
                throw BackendError(
                    .reauthSuspected, backend: backend,
                    message: "another daygate process is renewing this \(backend) login; tried again later",
                    retryAfter: 5)
            }
            try await Task.sleep(for: poll)
        }
        do {
            let value = try await body()
            try? await vault.releaseLease(holder, profile: profile, backend: backend, name: name)
            return value
        } catch {
            try? await vault.releaseLease(holder, profile: profile, backend: backend, name: name)
            throw error
        }
    }
}
