import Cache
import Foundation
import Testing

/// The gateway's own id: made once with the state folder's database, the same when it is
/// opened again (a restart, an upgrade), another for another state folder.
@Suite("Gateway id")
struct GatewayIDTests {
    @Test func theIDOutlivesARestartAndBelongsToItsFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-id-\(UUID())").path
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-id-\(UUID())").path
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: other)
        }
        let first = try CacheDatabase(stateDirectory: folder).gatewayID()
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit), "\(first)")
        #expect(try CacheDatabase(stateDirectory: folder).gatewayID() == first)
        #expect(try CacheDatabase(stateDirectory: other).gatewayID() != first)
    }
}
