import Backends
import Foundation
import Model
import Testing

/// What docs/architecture.md's "Adding a backend" asks of a backend outside the code the core
/// calls, checked for every backend of the catalog; a failure names the backend and what it lacks.
@Suite("Every backend outside its home")
struct BackendChecklistTests {
    /// `daygate connect` and `daygate init --backend` know a backend only by its connector.
    @Test(arguments: BackendCatalog.names)
    func hasAConnector(backend: String) {
        #expect(
            BackendCatalog.connectors.contains { $0.backend == backend },
            "\(backend) has no connector (Backend.connector): `daygate connect \(backend)` and `daygate init --backend \(backend)` refuse it"
        )
    }

    /// docs/configuration.md has a section for the backend's keys.
    @Test(arguments: BackendCatalog.names)
    func isInTheConfigurationReference(backend: String) throws {
        let page = try String(
            contentsOf: ExampleConfig.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let headings = page.split(separator: "\n").filter { $0.hasPrefix("### ") }
        #expect(
            headings.contains { $0.hasPrefix("### `\(backend)`") },
            "docs/configuration.md has no section \"### `\(backend)` — …\" for \(backend)'s keys")
    }

    /// daygate.example.yaml's `default` profile shows the backend's section, and it loads.
    @Test(arguments: BackendCatalog.names)
    func isInTheExampleConfig(backend: String) throws {
        let profile = try #require(try ExampleConfig.load().profiles["default"])
        #expect(
            profile.configures(backend), "daygate.example.yaml's profile `default` has no section for \(backend)")
    }

    /// README's table of the operations route files can name lists each of the backend's.
    @Test(arguments: BackendCatalog.names)
    func hasItsOperationsInTheReadme(backend: String) throws {
        let readme = try String(contentsOf: ExampleConfig.root.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let operations = try #require(BackendCatalog.all.first { $0.name == backend }).operations.map(\.name)
        for operation in operations {
            #expect(
                rows.contains { $0.contains("`\(operation)`") },
                "README.md's table of operations has no row for \(backend)'s \(operation)")
        }
    }
}
