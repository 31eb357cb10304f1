import Foundation
import Model

/// 8alls needs no credentials, only where it lives (`base_url`, `timeout`).
public struct EightAllsSettings: BackendSettings, Hashable {
    public static let backend = "eightalls"
    /// A section that loads, for the suites that cover every backend (`BackendSettings.sample`).
    public static let sample = BackendSettingsSample(
        yaml: """
            base_url: http://127.0.0.1:9101/api
            """,
        secrets: [])

    public var endpoint: BackendEndpoint

    public init(endpoint: BackendEndpoint) {
        self.endpoint = endpoint
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }

    public init(from decoder: any Decoder) throws {
        endpoint = try BackendEndpoint(from: decoder)
    }
}
