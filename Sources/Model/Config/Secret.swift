/// A password, token or API key from the config. It redacts itself: printing it, interpolating
/// it, dumping the settings that hold it or encoding it gives `<redacted>`; only `reveal()`
/// gives the value, where it goes to its backend. `DaygateConfig.secrets` finds every `Secret`
/// in the profiles by reflection, so a new secret field is redacted from logs and answers by
/// being declared with this type.
public struct Secret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public static let redacted = "<redacted>"

    private let value: String

    public init(_ value: String) {
        self.value = value
    }

    /// The secret itself, for the request that sends it to its backend.
    public func reveal() -> String { value }

    public var isEmpty: Bool { value.isEmpty }

    public var description: String { Self.redacted }
    public var debugDescription: String { Self.redacted }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes `<redacted>`: a config encoded by mistake into an answer or a log carries no
    /// secret. Only an encoder given `.revealSecrets: true` (writing a config file the owner
    /// asked for, such as `daygate simulate`'s) writes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.userInfo[.revealSecrets] as? Bool == true ? value : Self.redacted)
    }

    /// Every `Secret` inside `value` (its stored properties, optionals, arrays and dictionaries,
    /// at any depth).
    public static func all(in value: Any) -> [Secret] {
        if let secret = value as? Secret { return [secret] }
        return Mirror(reflecting: value).children.flatMap { all(in: $0.value) }
    }
}

extension CodingUserInfoKey {
    /// `true` makes `Secret` encode its value instead of `<redacted>` (for writing config files).
    public static let revealSecrets = CodingUserInfoKey(rawValue: "daygate.revealSecrets")!
}
