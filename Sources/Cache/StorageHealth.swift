import Foundation
import GRDB

/// Whether the state folder takes writes: the last write that failed (when, and why in a
/// person's words) and the last that succeeded. Writable until a write fails, and again once
/// one succeeds after it.
public struct StorageHealth: Sendable, Equatable {
    public struct Failure: Sendable, Equatable {
        public var reason: String
        public var at: Date
    }

    public private(set) var lastFailure: Failure?
    public private(set) var lastSuccess: Date?
    /// Why the state folder could not be opened, when a temporary one stands in for it (what
    /// is kept there is lost at the next start).
    public private(set) var temporary: String?

    public init() {}

    public var writable: Bool {
        guard let lastFailure else { return true }
        return lastSuccess.map { $0 >= lastFailure.at } ?? false
    }

    /// Writes land where they should: writable, and in the real state folder.
    public var healthy: Bool { writable && temporary == nil }

    mutating func standingIn(because reason: String) {
        temporary = reason
    }

    mutating func succeeded(at date: Date) {
        lastSuccess = date
    }

    mutating func failed(_ reason: String, at date: Date) {
        lastFailure = Failure(reason: reason, at: date)
    }

    /// What went wrong, for a log line or an error message (no paths, no SQL).
    static func describe(_ error: any Error) -> String {
        if let error = error as? CocoaError,
            error.code == .fileWriteNoPermission || error.code == .fileWriteVolumeReadOnly
        {
            return "the state folder is read-only"
        }
        guard let error = error as? DatabaseError else { return "a write to the state folder failed" }
        switch error.resultCode {
        case .SQLITE_FULL: return "the disk holding the state folder is full"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "the database in the state folder is locked by another process"
        case .SQLITE_READONLY: return "the state folder is read-only"
        case .SQLITE_IOERR, .SQLITE_CORRUPT, .SQLITE_CANTOPEN:
            return "the disk holding the state folder fails (\(error.resultCode))"
        default: return "a write to the state folder failed (\(error.resultCode))"
        }
    }
}
