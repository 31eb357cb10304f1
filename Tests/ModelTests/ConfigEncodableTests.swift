import Foundation
import Model
import Testing

@Suite("Derived config encoding")
struct ConfigEncodableTests {
    /// A section as a new backend might write it: no `encode(to:)` of its own.
    struct Section: ConfigEncodable {
        var endpoint = BackendEndpoint(baseURL: "http://127.0.0.1:9200", timeout: .seconds(3))
        var apiKey = Secret("k-1")
        var latitude = 52.37
        var sessionKeepWarm: ConfigDuration = .seconds(60)
        var label: String? = nil
        var places: [String] = []
        var tags = ["a"]
    }

    func encoded(_ value: some Encodable, reveal: Bool = false) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.userInfo[.revealSecrets] = reveal
        return try JSONValue(parsing: encoder.encode(value))
    }

    @Test func propertiesAreWrittenUnderTheirSnakeCaseNamesWithTheEndpointFlattened() throws {
        let value = try encoded(Section(), reveal: true)
        #expect(
            value
                == .object([
                    "base_url": .string("http://127.0.0.1:9200"), "timeout": .string("3s"), "api_key": .string("k-1"),
                    "latitude": .double(52.37), "session_keep_warm": .string("60s"), "tags": .array([.string("a")]),
                ]))
        var section = Section()
        section.label = "Thuis"
        section.places = ["x"]
        let more = try encoded(section)
        #expect(more["label"] == .string("Thuis"))
        #expect(more["places"] == .array([.string("x")]))
        // A secret stays a secret unless the encoder is told to reveal it.
        #expect(more["api_key"] != .string("k-1"))
    }

    @Test func snakeCase() {
        #expect(ConfigKey.snakeCase("apiKey") == "api_key")
        #expect(ConfigKey.snakeCase("baseURL") == "base_url")
        #expect(ConfigKey.snakeCase("sessionKeepWarm") == "session_keep_warm")
        #expect(ConfigKey.snakeCase("token") == "token")
        #expect(ConfigKey.snakeCase("day2Start") == "day2_start")
    }
}
