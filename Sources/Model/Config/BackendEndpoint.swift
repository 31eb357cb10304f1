import Foundation

/// Where a backend lives and how long the gateway waits for it. Shared by every backend's
/// settings.
public struct BackendEndpoint: Sendable, Hashable, Codable {
    /// Base URL including the API prefix, e.g. `http://127.0.0.1:9101/api` for 8alls.
    public var baseURL: String
    /// Whole-request limit for one upstream call (connect included).
    public var timeout: ConfigDuration

    public init(baseURL: String, timeout: ConfigDuration = .seconds(5)) {
        self.baseURL = baseURL
        self.timeout = timeout
    }

    enum CodingKeys: String, CodingKey {
        case baseURL = "base_url"
        case timeout
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let baseURL = try container.decode(String.self, forKey: .baseURL)
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .baseURL, in: container, debugDescription: "expected an http:// or https:// URL"
            )
        }
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeout = try container.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? .seconds(5)
        guard timeout.seconds > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeout, in: container, debugDescription: "must be more than 0")
        }
    }
}
