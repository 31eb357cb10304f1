import CalendarReader
import Foundation
import Model

/// The last good copy of one calendar feed: its bytes read once into an `ICSCalendar` (or why
/// they could not be), the validators for the next conditional GET, and when it was checked
/// and when it last changed.
struct ICSFeedCopy: Sendable {
    var calendar: Result<ICSCalendar, ICSReadError>
    var byteCount: Int
    var etag: String?
    var lastModified: String?
    /// A local file's modification time (its validator).
    var fileModified: Date?
    /// When the source last confirmed or replaced this copy.
    var checkedAt: Date
    /// When its content last changed.
    var changedAt: Date
    /// Hash of the bytes: a 200 with the same bytes is no change.
    var digest: Int

    /// Whether the bytes were read to the end (no limit cut the reading short).
    var isComplete: Bool {
        switch calendar {
        case .success(let feed): return feed.isComplete
        case .failure: return true
        }
    }
}
