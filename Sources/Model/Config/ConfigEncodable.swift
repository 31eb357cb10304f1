import Foundation

/// A config section whose encoding is derived from its stored properties, so it is never a
/// hand-written mirror of its decoding: each property is written under its name in snake case
/// (`apiKey` → `api_key`, `baseURL` → `base_url`), a ``BackendEndpoint`` property's keys
/// (`base_url`, `timeout`) at the section's own level, and a property that is nil or an empty
/// list is left out, as a config file leaves it out.
///
/// The encoding is what the config loader's unknown-key check compares a file with (a key the
/// encoding lacks is refused), what `daygate simulate` and `daygate connect` write, and what the
/// reload plan and the cache keys compare (`ProfileConfig.settingsFingerprint`). Every
/// `BackendSettings` is one; its decoding (with its checks) stays the backend's own, under the
/// same names. A type that needs another shape writes its own `encode(to:)`, which wins.
public protocol ConfigEncodable: Encodable {}

extension ConfigEncodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        for child in Mirror(reflecting: self).children {
            guard let label = child.label else { continue }
            if let endpoint = child.value as? BackendEndpoint {
                try endpoint.encode(to: encoder)
                continue
            }
            if Self.isAbsent(child.value) { continue }
            guard let value = child.value as? any Encodable else {
                throw EncodingError.invalidValue(
                    child.value,
                    .init(codingPath: encoder.codingPath, debugDescription: "\(label) of \(Self.self) is not Encodable")
                )
            }
            try container.encode(value, forKey: ConfigKey(ConfigKey.snakeCase(label)))
        }
    }

    /// nil, or a list without items.
    static func isAbsent(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional: return mirror.children.isEmpty
        case .collection: return mirror.children.isEmpty
        default: return false
        }
    }
}

/// A key of a config section.
public struct ConfigKey: CodingKey, Hashable, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }

    /// `apiKey` → `api_key`, `sessionKeepWarm` → `session_keep_warm`, `baseURL` → `base_url`.
    public static func snakeCase(_ name: String) -> String {
        var result = ""
        var previous: Character? = nil
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                result.append("_")
            }
            result += character.lowercased()
            previous = character
        }
        return result
    }
}
