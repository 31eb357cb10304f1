import Backends
import Foundation
import Model
import Testing

/// `household:` and `clients[].scopes` as the config loader reads them: what is accepted, and
/// each mistake refused with the key it is about.
@Suite("Household and scopes in the config")
struct HouseholdConfigTests {
    let loader = ConfigLoaderTests()

    static let profiles = """
        profiles:
          default:
            eightalls:
              base_url: http://127.0.0.1:9101/api
          bas:
            eightalls:
              base_url: http://127.0.0.1:9101/api
        """

    @Test func aHouseholdAndScopedKeysDecode() throws {
        let config = try loader.load(
            Self.profiles + """

                clients:
                  - name: wall
                    key: wall-key-0123456789abcdef
                    scopes: [read, household]
                  - name: phone
                    key: phone-key-0123456789abcdef
                household:
                  name: De Vries
                  members:
                    - profile: default
                      id: anna
                      name: Anna
                      color: "#2563EB"
                      share: [nutrition]
                    - profile: bas
                      color: "#15803d"
                  wall:
                    night: "22:30-06:30"
                """)
        #expect(config.clients[0].scopes == [.read, .household])
        #expect(config.clients[1].scopes == [.read, .write], "no scopes: what every key could do before")
        let household = try #require(config.household)
        #expect(household.name == "De Vries")
        #expect(household.members.map(\.id) == ["anna", "bas"])
        #expect(household.members.map(\.name) == ["Anna", "bas"], "the name is the profile's unless given")
        #expect(household.members[0].color == "#2563eb")
        #expect(household.members[0].share == ["nutrition"])
        #expect(household.members[1].share == [])
        #expect(household.wall.night == NightHours("22:30-06:30"))
    }

    @Test(arguments: [
        ("scopes: [read, admin]", "clients[0].scopes", "unknown scope"),
        ("scopes: []", "clients[0].scopes", "no scope"),
    ])
    func aBadScopeIsRefused(line: String, key: String, reason: String) throws {
        let problem = try #require(
            loader.problem(
                Self.profiles + """

                    clients:
                      - name: wall
                        key: wall-key-0123456789abcdef
                        \(line)
                    """))
        #expect(problem.keyPath == key)
        #expect(problem.reason.contains(reason), "\(problem.reason)")
    }

    @Test(arguments: [
        ("- profile: nobody\n      color: \"#000000\"", "household.members[0].profile", "no profile"),
        (
            "- profile: default\n      color: \"#000000\"\n    - profile: default\n      color: \"#ffffff\"",
            "household.members[1].profile", "already a member"
        ),
        (
            "- profile: default\n      id: x\n      color: \"#000000\"\n    - profile: bas\n      id: x\n      color: \"#ffffff\"",
            "household.members[1].id", "another member"
        ),
        ("- profile: default\n      color: blue", "household.members[0].color", "#rrggbb"),
        ("- profile: default\n      color: \"#12345\"", "household.members[0].color", "#rrggbb"),
        ("- profile: default\n      name: \"\"\n      color: \"#000000\"", "household.members[0].name", "1 to 40"),
        ("- profile: default\n      id: \"a b\"\n      color: \"#000000\"", "household.members[0].id", "letters"),
        (
            "- profile: default\n      color: \"#000000\"\n      share: [\"meals!\"]", "household.members[0].share",
            "section name"
        ),
    ])
    func aBadMemberIsRefused(members: String, key: String, reason: String) throws {
        let problem = try #require(
            loader.problem(
                Self.profiles + """

                    household:
                      members:
                        \(members)
                    """))
        #expect(problem.keyPath == key, "\(problem)")
        #expect(problem.reason.contains(reason), "\(problem.reason)")
    }

    @Test func anEmptyHouseholdAndAnUnknownKeyAreRefused() throws {
        let empty = try #require(loader.problem(Self.profiles + "\nhousehold:\n  members: []\n"))
        #expect(empty.keyPath == "household.members")
        let unknown = try #require(
            loader.problem(
                Self.profiles + "\nhousehold:\n  members:\n    - profile: default\n      colour: \"#000000\"\n"))
        #expect(unknown.reason.contains("colour") || unknown.keyPath.contains("colo"), "\(unknown)")
    }

    @Test(arguments: [
        ("22:30-06:30", 22 * 60 + 30, 6 * 60 + 30), ("00:00-07:00", 0, 7 * 60),
        ("13:05-14:10", 13 * 60 + 5, 14 * 60 + 10),
    ])
    func nightHoursRead(text: String, from: Int, to: Int) {
        let hours = NightHours(text)
        #expect(hours?.from == from && hours?.to == to)
        #expect(hours?.description == text)
    }

    @Test(arguments: [
        "22:30", "22:30-22:30", "24:00-06:00", "7:00-08:00", "22:60-06:00", "22:30-06:30-07:00", "aa:bb-cc:dd",
    ])
    func badNightHoursAreRefused(text: String) {
        #expect(NightHours(text) == nil)
    }

    @Test func theNightPassesMidnight() throws {
        let night = try #require(NightHours("22:30-06:30"))
        #expect(night.contains(minute: 23 * 60))
        #expect(night.contains(minute: 0))
        #expect(night.contains(minute: 6 * 60 + 29))
        #expect(!night.contains(minute: 6 * 60 + 30))
        #expect(!night.contains(minute: 12 * 60))
        #expect(night.contains(minute: 22 * 60 + 30))
        let afternoon = try #require(NightHours("13:00-14:00"))
        #expect(afternoon.contains(minute: 13 * 60 + 30) && !afternoon.contains(minute: 14 * 60))
    }
}
