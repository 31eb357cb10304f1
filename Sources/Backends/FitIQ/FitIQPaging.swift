import Foundation
import Model

/// Reading a FitIQ list that pages (`limit`, `offset`, `has_more`): one page after the other
/// until FitIQ says there is no more, or until `maximumItems` were read (then `truncated`, and
/// the section says so), or a page brings nothing (a server that keeps saying `has_more`
/// cannot keep the gateway asking).
struct FitIQPaging: Equatable {
    static let pageSize = 100
    static let maximumItems = 500

    var pageSize: Int
    var maximumItems: Int
    /// The offset of the next page to ask for; nil when done.
    private(set) var nextOffset: Int? = 0
    private(set) var items: [JSONValue] = []
    /// The cap cut the list: FitIQ had more.
    private(set) var truncated = false

    init(pageSize: Int = Self.pageSize, maximumItems: Int = Self.maximumItems) {
        self.pageSize = pageSize
        self.maximumItems = maximumItems
    }

    /// Takes the page asked for at `nextOffset`.
    mutating func take(_ page: [JSONValue], hasMore: Bool) {
        guard let offset = nextOffset else { return }
        let room = maximumItems - items.count
        items += page.prefix(room)
        if page.count > room || (hasMore && items.count >= maximumItems) {
            truncated = true
            nextOffset = nil
        } else if hasMore, !page.isEmpty {
            nextOffset = offset + page.count
        } else {
            nextOffset = nil
        }
    }

    /// The page's items and its `has_more` (false when absent).
    static func page(_ value: JSONValue, keys: [String]) -> (items: [JSONValue], hasMore: Bool) {
        let items = LenientList.items(in: value, keys: keys) ?? []
        return (items, LenientFields(value)?.bool("has_more", "hasMore") ?? false)
    }

    /// What the section says when the cap cut the list.
    func issue(_ what: String) -> SectionIssue? {
        guard truncated else { return nil }
        return SectionIssue(
            scope: what, code: "truncated",
            message: "FitIQ has more \(what) in these days than the gateway reads (\(maximumItems)); the list is cut")
    }
}
