import Backends
import Foundation
import Model
import Testing

/// Each backend's part of `/v1/sources` writes exactly the keys it declares for /openapi.json.
@Suite("Sources parts")
struct SourcesPartTests {
    @Test func everyPartWritesTheKeysItDeclares() async throws {
        // Every backend of the catalog, each with its sample section.
        let profile = try #require(try BackendSamples.load(BackendSamples.config).profiles["default"])
        let health = SourceHealth(
            UpstreamMonitor.Status(source: UpstreamSource(profile: "default", backend: "x")), zone: .gmt)
        let input = SourcesInput(profileName: "default", profile: profile, vault: MemoryCredentialVault()) { _ in
            health
        }
        var checked = 0
        for backend in BackendCatalog.all {
            guard let part = backend.sourcesPart else { continue }
            let details = await part.details(input)
            #expect(Set(details.keys) == Set(part.detailSchemas.keys), "\(backend.name)")
            // A list of the section's items (enrollments, calendars) lists the sample's one.
            for (key, value) in details {
                if let items = value.arrayValue {
                    #expect(items.count == 1, "\(backend.name).\(key) lists the one configured item")
                }
            }
            if let access = details["access"] {
                #expect(access["has_access"] == .null, "nothing known before Tickedify said anything")
            }
            if let link = details["login_link"] {
                #expect(link["state"] == .string("none"), "no link kept before `daygate connect`")
            }
            checked += 1
        }
        #expect(checked > 0)
    }
}

@Suite("Sources parts: connected enrollments")
struct ConnectedEnrollmentSourcesTests {
    @Test("an enrollment kept by `daygate connect` is listed after the config's")
    func connectedEnrollmentIsListed() async throws {
        let vault = MemoryCredentialVault()
        let connected = KantineKoningConnectedEnrollment(
            id: "ab12cd34", tenant: "agovv", tenantName: "AGOVV", role: "member",
            teams: [.init(id: "t-1", code: "JO10-5", naam: "JO10-5")], token: "connected-token", email: nil,
            enrolledAt: Date(timeIntervalSince1970: 1_790_000_000))
        try await KantineKoningConnectedEnrollments(vault: vault, profile: "default").save([connected])
        let profile = ProfileConfig([
            KantineKoningSettings(
                endpoint: BackendEndpoint(baseURL: "http://127.0.0.1:9"),
                enrollments: [.init(tenant: "club", role: "manager", token: Secret("token-1"), label: "Club")])
        ])
        let health = SourceHealth(
            UpstreamMonitor.Status(source: UpstreamSource(profile: "default", backend: "x")), zone: .gmt)
        let input = SourcesInput(profileName: "default", profile: profile, vault: vault) { _ in health }
        let part = try #require(KantineKoningBackend().sourcesPart)
        let details = await part.details(input)
        let listed = details["enrollments"]?.arrayValue ?? []
        #expect(listed.map { $0["label"]?.stringValue } == ["Club", "AGOVV (member JO10-5)"])
        #expect(listed.last?["tenant"] == .string("agovv"))
        #expect(listed.last?["role"] == .string("member"))
        // The token itself is never listed.
        let text = String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        #expect(!text.contains("connected-token"))
    }
}
