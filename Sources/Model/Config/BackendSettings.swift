import Foundation

/// One backend's section of a profile (`profiles.<name>.tickedify`), as the backend defines and
/// decodes it. Secret fields are `Secret`s. The profile holds the sections by backend name;
/// the backend reads its own back with `profile[TickedifySettings.self]`.
///
/// The backend writes its decoding (with its checks) under the snake-case names of its stored
/// properties; the encoding is derived from those properties (``ConfigEncodable``), never
/// written by hand.
public protocol BackendSettings: Sendable, Codable, ConfigEncodable {
    /// The backend's name: its key in a profile, in route operations (`tickedify.list`), in
    /// answers and metrics.
    static var backend: String { get }
    /// Where it lives: the shared HTTP client keeps a connection pool per origin.
    var endpoints: [BackendEndpoint] { get }
    /// A section of this backend that loads, with the secrets in it: what the suites that cover
    /// every backend of the catalog configure it with, so a new backend is covered by them
    /// without editing them.
    static var sample: BackendSettingsSample { get }
}

/// A backend's config section for the suites (`BackendSettings.sample`): its YAML (the keys
/// under the backend's name, not indented) and every secret value in it.
public struct BackendSettingsSample: Sendable {
    public var yaml: String
    public var secrets: [String]

    public init(yaml: String, secrets: [String]) {
        self.yaml = yaml
        self.secrets = secrets
    }
}

/// The settings types a config may hold, in the order answers list their backends. Config
/// decoding takes it from the decoder's `userInfo[.backendSettings]`.
public struct BackendSettingsCatalog: Sendable {
    public var types: [any BackendSettings.Type]

    public init(_ types: [any BackendSettings.Type]) {
        self.types = types
    }

    public var names: [String] { types.map { $0.backend } }

    public func type(named name: String) -> (any BackendSettings.Type)? {
        types.first { $0.backend == name }
    }
}

extension CodingUserInfoKey {
    /// A `BackendSettingsCatalog`: which backend sections a profile may have.
    public static let backendSettings = CodingUserInfoKey(rawValue: "daygate.backendSettings")!
}
