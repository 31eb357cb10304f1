import Foundation
import Model

/// How an entry's typed arguments are kept in its row (`cache_entry.arguments`): a JSON object
/// of argument name → `{kind: canonical text}`, e.g. `{"date":{"date":"2026-11-24"}}` or
/// `{"limit":{"int":"20"},"list":{"string":"inbox"}}`. Invalidation reads them back, so it
/// never has to parse a storage key.
enum StoredArguments {
    /// The JSON text of `arguments` (keys sorted, so equal arguments give equal text).
    /// Written by hand, byte for byte what `JSONEncoder` with sorted keys wrote (every cache
    /// lookup names its key with it; the encoder cost a fiftieth of a cold day).
    static func encode(_ arguments: [String: ArgumentValue]) -> String {
        var text = "{"
        for (index, (name, value)) in arguments.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += "," }
            text += JSONValue.quoted(name) + ":{" + JSONValue.quoted(value.kind.rawValue) + ":"
            text += JSONValue.quoted(value.description) + "}"
        }
        return text + "}"
    }

    /// The arguments in `text`; nil when it is not what `encode` writes.
    static func decode(_ text: String) -> [String: ArgumentValue]? {
        guard let object = try? JSONDecoder().decode([String: [String: String]].self, from: Data(text.utf8)) else {
            return nil
        }
        var arguments: [String: ArgumentValue] = [:]
        for (name, typed) in object {
            guard typed.count == 1, let (kind, text) = typed.first, let kind = ArgumentValue.Kind(rawValue: kind),
                let value = ArgumentValue(kind: kind, text: text)
            else { return nil }
            arguments[name] = value
        }
        return arguments
    }
}
