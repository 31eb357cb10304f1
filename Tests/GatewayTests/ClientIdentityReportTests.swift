import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import Testing

@testable import daygate

/// `GET /v1/me`: who the asking key is, for a client that sets itself up (Home Assistant's
/// integration), against the demo's household of three.
@Suite("Client identity (/v1/me)")
struct ClientIdentityReportTests {
    @Test func eachKeyLearnsWhoItIsAndNoMore() async throws {
        try await withDemo(clients: HouseholdTests.clients, household: true) { demo in
            try await demo.test { client in
                func me(_ key: ClientConfig) async throws -> JSONValue {
                    let response = try await client.execute(
                        uri: "/v1/me", method: .get, headers: HouseholdTests.bearer(key))
                    #expect(response.status == .ok, "\(key.name): \(String(buffer: response.body).prefix(200))")
                    return try response.json
                }
                let anna = try await me(HouseholdTests.anna)
                #expect(anna["client"]?["name"]?.stringValue == "anna-phone")
                #expect(anna["profile"]?.stringValue == "default")
                #expect(anna["scopes"] == .array([.string("read"), .string("write")]))
                #expect(anna["household"] == .null, "no household scope: no household")
                let id = try #require(anna["gateway"]?["id"]?.stringValue)
                #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
                #expect(anna["gateway"]?["timezone"]?.stringValue == demo.runtime.config.timezone)
                let wall = try await me(HouseholdTests.wall)
                #expect(wall["scopes"] == .array([.string("read"), .string("household")]))
                let members = wall["household"]?["members"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
                #expect(members == ["anna", "bas", "mila"])
                #expect(wall["household"]?["members"]?.arrayValue?.first?["profile"]?.stringValue == "default")
                #expect(wall["gateway"]?["id"]?.stringValue == id, "one gateway, one id")
                // A key that may only read the household still learns who it is.
                let hall = try await me(HouseholdTests.householdOnly)
                #expect(hall["scopes"] == .array([.string("household")]))
                // A wrong key learns nothing.
                let refused = try await client.execute(
                    uri: "/v1/me", method: .get, headers: [.authorization: "Bearer not-a-key-0123456789"])
                #expect(refused.status == .unauthorized)
            }
        }
    }

    @Test func withoutKeysTheMachinesUserMayDoEverything() async throws {
        try await withDemo(clients: [], household: true) { demo in
            try await demo.test { client in
                let response = try await client.execute(uri: "/v1/me", method: .get)
                let me = try response.json
                #expect(me["client"] == .null)
                #expect(me["profile"]?.stringValue == "default")
                #expect(me["scopes"] == .array([.string("read"), .string("write"), .string("household")]))
                #expect(me["household"]?["members"]?.arrayValue?.count == 3)
            }
        }
    }
}
