import Backends
import Foundation
import Model
import Testing

/// A config or route file is untrusted too: the work it can cause is bounded.
struct ConfigWorkBoundTests {
    static func decode(_ text: String) throws -> DaygateConfig {
        try YAMLDocument(file: "/etc/daygate/daygate.yaml", environment: [:], backends: BackendCatalog.settings)
            .decode(DaygateConfig.self, from: text)
    }

    /// "Billion laughs": nine lines whose aliases multiply to 10^9 values; every pass over the
    /// document (substitution, decoding, the unknown-key check) would walk all of them.
    @Test func anAliasBombIsRefusedBeforeAnyPassOverIt() throws {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            lines.append(
                "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]")
        }
        lines.append("timezone: Europe/Amsterdam")
        let started = ContinuousClock.now
        #expect(throws: YAMLSourceError.self) { try Self.decode(lines.joined(separator: "\n")) }
        // Only a walk over the aliases' values could take long (minutes, unbounded memory).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aReferencedFileIsReadOnlyUpToItsLimit() throws {
        do {
            _ = try Self.decode(
                "timezone: Europe/Amsterdam\nclients:\n  - {name: a, key: \"${file:/dev/zero}\", profile: default}\n")
            Issue.record("an endless ${file:} was read")
        } catch let error as YAMLSourceError {
            #expect("\(error)".contains("larger than 64 KB"), "\(error)")
        }
    }
}
