import Backends
import Foundation
import Model
import Testing

/// Each backend's part of `/v1/sources` writes exactly the keys it declares for /openapi.json.
@Suite("Sources parts")
struct SourcesPartTests {
    @Test func everyPartWritesTheKeysItDeclares() async throws {
        let profile = ProfileConfig([
            KantineKoningSettings(
                endpoint: BackendEndpoint(baseURL: "http://127.0.0.1:9"),
                enrollments: [.init(tenant: "club", role: "member", token: Secret("token-1"), label: "Club")]),
            ICSSettings(calendars: [ICSSettings.Calendar(name: "school", url: "https://school.example/a.ics")]),
            TickedifySettings(
                endpoint: BackendEndpoint(baseURL: "http://127.0.0.1:9"), email: "a@example.com",
                password: Secret("password-1")),
        ])
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
            for (key, value) in details where key != "access" {
                #expect(value.arrayValue?.count == 1, "\(backend.name).\(key) lists the one configured item")
            }
            if let access = details["access"] {
                #expect(access["has_access"] == .null, "nothing known before Tickedify said anything")
            }
            checked += 1
        }
        #expect(checked == 3)
    }
}
