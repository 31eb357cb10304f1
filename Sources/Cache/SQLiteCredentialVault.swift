import Foundation
import GRDB
import Model

/// The credential vault in the state database: session cookies, access tokens and rotated
/// refresh tokens per profile and backend. Writes are durable (WAL, committed) before
/// `setValue` returns, so a rotated refresh token survives a crash right after.
public final class SQLiteCredentialVault: CredentialVault {
    private let database: CacheDatabase

    public init(database: CacheDatabase) {
        self.database = database
    }

    /// Read synchronously, as every read of the state database is (`CacheDatabase.pool`).
    public func value(profile: String, backend: String, name: String) async -> String? {
        try? database.credential(profile: profile, backend: backend, name: name)
    }

    public func setValue(_ value: String?, profile: String, backend: String, name: String) async throws {
        try await database.write { db in
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO credential (profile, backend, name, value, updated_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(profile, backend, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """,
                    arguments: [profile, backend, name, value, Date().timeIntervalSince1970]
                )
            } else {
                try db.execute(
                    sql: "DELETE FROM credential WHERE profile = ? AND backend = ? AND name = ?",
                    arguments: [profile, backend, name]
                )
            }
        }
    }

    @discardableResult
    public func removeValue(ifStill expected: String, profile: String, backend: String, name: String) async throws
        -> Bool
    {
        try await database.write { db in
            try db.execute(
                sql: "DELETE FROM credential WHERE profile = ? AND backend = ? AND name = ? AND value = ?",
                arguments: [profile, backend, name, expected]
            )
            return db.changesCount > 0
        }
    }

    public func takeLease(
        _ holder: String, until: Date, now: Date, profile: String, backend: String, name: String
    ) async throws -> Bool {
        try await database.write { db in
            let current = try String.fetchOne(
                db, sql: "SELECT value FROM credential WHERE profile = ? AND backend = ? AND name = ?",
                arguments: [profile, backend, name])
            guard VaultLeaseValue.isFree(current, for: holder, now: now) else { return false }
            try db.execute(
                sql: """
                    INSERT INTO credential (profile, backend, name, value, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(profile, backend, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """,
                arguments: [
                    profile, backend, name, VaultLeaseValue.text(holder: holder, until: until),
                    now.timeIntervalSince1970,
                ]
            )
            return true
        }
    }

    public func releaseLease(_ holder: String, profile: String, backend: String, name: String) async throws {
        try await database.write { db in
            let current = try String.fetchOne(
                db, sql: "SELECT value FROM credential WHERE profile = ? AND backend = ? AND name = ?",
                arguments: [profile, backend, name])
            guard VaultLeaseValue.isHeld(current, by: holder) else { return }
            try db.execute(
                sql: "DELETE FROM credential WHERE profile = ? AND backend = ? AND name = ?",
                arguments: [profile, backend, name])
        }
    }
}
