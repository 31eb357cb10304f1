import Foundation

extension SessionRegistry {
    /// The Tickedify session of `profile`, made on first use with `policy` and the registry's
    /// clock. Tickedify locks an account after 5 logins in 15 minutes (every attempt counts):
    /// the gateway makes at most 4, leaving one for the person's own browser.
    public func tickedifySession(profile: String, policy: TickedifySessionTrust.Policy) -> TickedifySession {
        shared("\(profile)|\(TickedifyClient.backend)|session") {
            TickedifySession(
                auth: session(
                    profile: profile, backend: TickedifyClient.backend, name: TickedifySession.vaultName,
                    limit: AuthSession.AttemptLimit(attempts: 4, window: 900)
                ),
                vault: vault, profile: profile, policy: policy, now: now
            )
        }
    }
}
