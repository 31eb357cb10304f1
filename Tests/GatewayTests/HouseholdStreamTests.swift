import Foundation
import Model
import Testing

@testable import Gateway

/// `/v1/household/stream` tells what the household answers show, no more: a member's change
/// to a section they do not share (their meals) is not told; and a reload that takes the
/// `household` scope from the key ends its stream.
@Suite struct HouseholdStreamTests {
    @Test func aMembersUnsharedSectionsAreNotTold() async throws {
        try await withDemo(household: true) { demo in
            let household = try #require(demo.config.household)
            let routes = demo.runtime.routes.filter { $0.household != nil } + [demo.runtime.summary.route]
            let members = HouseholdStreamMember.members(of: household, routes: routes)
            let mila = try #require(members["mila"])
            let anna = try #require(members["default"])
            #expect(mila.id == "mila")
            #expect(!mila.sees("fitiq.nutrition"), "Mila does not share her meals")
            #expect(mila.sees("eightalls.events"))
            #expect(anna.id == "anna")
            #expect(anna.sees("fitiq.nutrition"), "Anna shares hers")
        }
    }

    @Test func takingTheHouseholdScopeAwayEndsTheHouseholdStream() {
        let wall = ClientConfig(
            name: "wall", key: "wall-key-0123456789abcdef", profile: "default", scopes: [.read, .household])
        var readOnly = wall
        readOnly.scopes = [.read]
        func config(_ clients: [ClientConfig], household: Bool = true) -> DaygateConfig {
            DaygateConfig(
                stateDir: "state", timezone: GatewayHarness.zone.identifier, routesDir: GatewayHarness.routesDir,
                staticDir: "/nonexistent", profiles: ["default": ProfileConfig()], clients: clients,
                household: household
                    ? HouseholdConfig(name: nil, members: [.init(profile: "default", name: "Anna", color: "#2563eb")])
                    : nil)
        }
        let stream = StreamCredential(key: wall.key, profile: "default", household: true)
        #expect(stream.isAdmitted(by: config([wall])))
        #expect(!stream.isAdmitted(by: config([readOnly])), "the household scope was taken away")
        #expect(!stream.isAdmitted(by: config([wall], household: false)), "the household was removed")
        let own = StreamCredential(key: wall.key, profile: "default")
        #expect(own.isAdmitted(by: config([readOnly])), "its own profile's stream needs no household scope")
    }
}
