import Foundation

/// One thing to pick: `key` is what a flag names it by, `label` what a person reads.
public struct ConnectChoice: Sendable, Equatable {
    public var key: String
    public var label: String

    public init(key: String, label: String) {
        self.key = key
        self.label = label
    }

    /// The indices of `choices` that `answer` names (keys or labels, case-insensitive, comma-
    /// separated, or 1-based numbers); nil when a name matches none.
    public static func pick(_ answer: String, from choices: [ConnectChoice]) -> [Int]? {
        var picked: [Int] = []
        for part in answer.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            let lowered = name.lowercased()
            if let index = choices.firstIndex(where: {
                $0.key.lowercased() == lowered || $0.label.lowercased() == lowered
            }) {
                if !picked.contains(index) { picked.append(index) }
            } else if let number = Int(name), (1...choices.count).contains(number) {
                if !picked.contains(number - 1) { picked.append(number - 1) }
            } else {
                return nil
            }
        }
        return picked
    }
}
