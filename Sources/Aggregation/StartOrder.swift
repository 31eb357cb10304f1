import Foundation
import Model

/// The order of a list joined from several (`merge_into`, a household's `combine`): by start
/// time when every item has one, ties keeping their order; as given otherwise.
enum StartOrder {
    static func sorted<Item>(_ items: [Item], start: (Item) -> Date?) -> [Item] {
        let starts = items.map(start)
        guard starts.allSatisfy({ $0 != nil }) else { return items }
        return zip(items.indices, items).sorted { lhs, rhs in
            let (left, right) = (starts[lhs.0]!, starts[rhs.0]!)
            return left == right ? lhs.0 < rhs.0 : left < right
        }.map(\.1)
    }

    /// An item's `start`, as any of the gateway's list items writes it.
    static func start(of item: JSONValue) -> Date? {
        item["start"]?.stringValue.flatMap { LenientDate.parse($0) }
    }
}
