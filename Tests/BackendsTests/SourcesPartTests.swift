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
            for (key, value) in details {
                #expect(value.arrayValue?.count == 1, "\(backend.name).\(key) lists the one configured item")
            }
            checked += 1
        }
        #expect(checked == 2)
    }
}
