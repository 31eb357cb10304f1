import Foundation

extension SessionRegistry {
    /// Tickedify refuses more than 5 logins in 15 minutes from one client address, whatever
    /// the account: the gateway makes at most 4, leaving one for the person's own browser.
    public static let tickedifyLoginLimit = AuthSession.AttemptLimit(attempts: 4, window: 900)

    /// The Tickedify session of one account (`scope`: the server and the e-mail), made on first
    /// use with `policy` and the registry's clock; its logins count against the login budget of
    /// its server (`baseURL`), which every account and profile on that server shares.
    public func tickedifySession(scope: AccountScope, baseURL: String, policy: TickedifySessionTrust.Policy)
        -> TickedifySession
    {
        // Asked for before `shared` holds its lock (the budget is shared state of its own).
        let budget = tickedifyLoginBudget(baseURL: baseURL)
        return shared("\(scope)|\(TickedifyClient.backend)|session") {
            TickedifySession(
                auth: session(
                    profile: scope.description, backend: TickedifyClient.backend, name: TickedifySession.vaultName,
                    budget: budget
                ),
                vault: vault, profile: scope.description, policy: policy, now: now, sleep: sleep
            )
        }
    }

    /// The logins left at the Tickedify server `baseURL`, shared by all its accounts.
    public func tickedifyLoginBudget(baseURL: String) -> AttemptBudget {
        let server = AccountScope.server(baseURL)
        return shared("\(server)|\(TickedifyClient.backend)|logins") {
            AttemptBudget(
                backend: TickedifyClient.backend, limit: Self.tickedifyLoginLimit, vault: vault, scope: server,
                vaultName: "login.attempts", now: now)
        }
    }
}
