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
