import Foundation
import Model

/// 8alls needs no credentials, only where it lives (`base_url`, `timeout`).
public struct EightAllsSettings: BackendSettings, Hashable {
    public static let backend = "eightalls"

    public var endpoint: BackendEndpoint

    public init(endpoint: BackendEndpoint) {
        self.endpoint = endpoint
    }

    public var endpoints: [BackendEndpoint] { [endpoint] }

    public init(from decoder: any Decoder) throws {
        endpoint = try BackendEndpoint(from: decoder)
    }
}
