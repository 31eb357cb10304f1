import GRDB

extension CacheDatabase {
    /// The gateway's own id: 32 hexadecimal digits made once, when the state folder's database
    /// was created, and the same across restarts, upgrades and address changes (a gateway
    /// standing in on a temporary folder has a new one each start).
    public func gatewayID() throws -> String {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT id FROM gateway_identity LIMIT 1") ?? ""
        }
    }
}
