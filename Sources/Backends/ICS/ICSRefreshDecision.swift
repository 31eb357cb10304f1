import Foundation

/// Whether a calendar's feed is asked for again: not before its `refresh` interval has passed
/// since the source last confirmed the copy (the copy serves meanwhile, however many answers
/// need it), and then conditionally, with the copy's `ETag` and `Last-Modified`, so an
/// unchanged feed costs a 304 and no parsing. A failed check leaves the copy in place and is
/// retried after a minute at most, not at every request — also when there is no copy yet (a
/// feed that never answered is not fetched, and its error body not read, at every request).
enum ICSRefreshDecision: Equatable {
    /// Serve the copy as it is (without a copy: the last failure again).
    case useCopy
    /// Ask the source, with these conditional headers (none without a copy).
    case fetch(ifNoneMatch: String?, ifModifiedSince: String?)

    static let retryAfterFailure: TimeInterval = 60

    static func decide(
        copy: ICSFeedCopy?, lastFailure: Date?, refresh: TimeInterval, now: Date
    ) -> ICSRefreshDecision {
        if let lastFailure, now >= lastFailure, now.timeIntervalSince(lastFailure) < min(refresh, retryAfterFailure) {
            return .useCopy
        }
        guard let copy else { return .fetch(ifNoneMatch: nil, ifModifiedSince: nil) }
        guard now.timeIntervalSince(copy.checkedAt) >= refresh || now < copy.checkedAt else { return .useCopy }
        return .fetch(ifNoneMatch: copy.etag, ifModifiedSince: copy.lastModified)
    }
}
