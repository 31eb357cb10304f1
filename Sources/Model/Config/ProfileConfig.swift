import Foundation

/// One household member's backend settings and credentials: a section per backend, each
/// decoded by its backend (`BackendSettings`). A backend left out is not configured for this
/// profile and is absent from its answers.
public struct ProfileConfig: Sendable, Codable {
    private var sections: [String: any BackendSettings]

    public init(_ settings: [any BackendSettings] = []) {
        sections = [:]
        for section in settings { sections[type(of: section).backend] = section }
    }

    /// The section of one backend, nil when the profile does not configure it.
    public subscript<Settings: BackendSettings>(_ type: Settings.Type) -> Settings? {
        get { sections[Settings.backend] as? Settings }
        set { sections[Settings.backend] = newValue }
    }

    /// Names of the backends this profile has settings for (sorted).
    public var configuredBackends: [String] { sections.keys.sorted() }

    public func configures(_ backend: String) -> Bool { sections[backend] != nil }

    /// The section of the backend called `backend`, nil when the profile does not configure it.
    public func settings(of backend: String) -> (any BackendSettings)? { sections[backend] }

    /// Where this profile's backends live.
    public var endpoints: [BackendEndpoint] {
        sections.keys.sorted().flatMap { sections[$0]?.endpoints ?? [] }
    }

    /// Every secret of every section.
    public var secrets: [Secret] {
        sections.values.flatMap { Secret.all(in: $0) }
    }

    public init(from decoder: any Decoder) throws {
        let catalog = decoder.userInfo[.backendSettings] as? BackendSettingsCatalog ?? BackendSettingsCatalog([])
        let container = try decoder.container(keyedBy: AnyKey.self)
        sections = [:]
        for key in container.allKeys {
            guard let type = catalog.type(named: key.stringValue) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "unknown backend (known: \(catalog.names.joined(separator: ", ")))")
            }
            sections[key.stringValue] = try Self.decode(type, from: container, key: key)
        }
    }

    private static func decode<Settings: BackendSettings>(
        _ type: Settings.Type, from container: KeyedDecodingContainer<AnyKey>, key: AnyKey
    ) throws -> any BackendSettings {
        try container.decode(Settings.self, forKey: key)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for name in sections.keys.sorted() {
            try container.encode(sections[name]!, forKey: AnyKey(name))
        }
    }
}
