import Foundation
import Model
import Synchronization
import Testing

@testable import Gateway

/// A reload that removes a client key, or maps it to another profile, ends that client's open
/// `/v1/stream`s; the streams of keys it keeps go on.
@Suite struct StreamRevocationTests {
    static let anna = ClientConfig(name: "anna-phone", key: "anna-key-0123456789abcdef", profile: "default")
    static let ben = ClientConfig(name: "ben-laptop", key: "ben-key-fedcba9876543210", profile: "ben")
    static let carl = ClientConfig(name: "carl-tablet", key: "carl-key-00112233445566", profile: "default")

    static func config(clients: [ClientConfig], stateDir: String = "state") -> DaygateConfig {
        DaygateConfig(
            stateDir: stateDir, timezone: GatewayHarness.zone.identifier, routesDir: GatewayHarness.routesDir,
            staticDir: "/nonexistent", profiles: ["default": ProfileConfig(), "ben": ProfileConfig()],
            clients: clients)
    }

    @Test func aCredentialIsAdmittedWhileItsKeyMapsToItsProfile() {
        let before = Self.config(clients: [Self.anna, Self.ben])
        let anna = StreamCredential(key: Self.anna.key, profile: "default")
        #expect(anna.isAdmitted(by: before))
        #expect(!anna.isAdmitted(by: Self.config(clients: [Self.ben])), "key removed")
        var moved = Self.anna
        moved.profile = "ben"
        #expect(!anna.isAdmitted(by: Self.config(clients: [moved, Self.ben])), "key moved to another profile")
        var renewed = Self.anna
        renewed.key = "anna-key-new-0123456789"
        #expect(!anna.isAdmitted(by: Self.config(clients: [renewed, Self.ben])), "key changed")
        var renamed = Self.anna
        renamed.name = "anna-new-phone"
        #expect(anna.isAdmitted(by: Self.config(clients: [renamed, Self.ben])), "only the name changed")

        let keyless = StreamCredential(key: nil, profile: "default")
        #expect(keyless.isAdmitted(by: Self.config(clients: [])))
        #expect(!keyless.isAdmitted(by: before), "keys were added")
    }

    @Test func openStreamsEndThoseAReloadNoLongerAdmits() {
        let streams = OpenStreams(config: Self.config(clients: [Self.anna, Self.ben]))
        let ended = Mutex<[String]>([])
        do {
            let anna = streams.open(StreamCredential(key: Self.anna.key, profile: "default")) {
                ended.withLock { $0.append("anna") }
            }
            let ben = streams.open(StreamCredential(key: Self.ben.key, profile: "ben")) {
                ended.withLock { $0.append("ben") }
            }
            withExtendedLifetime((anna, ben)) {
                #expect(anna != nil && ben != nil && streams.count == 2)
                #expect(streams.configChanged(to: Self.config(clients: [Self.ben])) == 1)
                #expect(ended.withLock { $0 } == ["anna"])
                #expect(streams.count == 1)
                // Admitted by the runtime a reload replaced, registered after it: refused.
                #expect(streams.open(StreamCredential(key: Self.anna.key, profile: "default")) {} == nil)
            }
        }
        #expect(streams.count == 0, "a stream that ends is forgotten")
    }

    // MARK: - Live

    static func openStream(_ port: Int, key: String) async throws -> RawClient {
        let stream = try RawClient(port: port)
        stream.send("GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n\r\n")
        await stream.wait(timeout: .seconds(10)) {
            $0.text.contains("event: hello") || $0.closed
                || ($0.status != nil && $0.status != 200 && $0.body.hasSuffix("}"))
        }
        return stream
    }

    /// The chunked answer has ended (its last chunk) or the connection is gone.
    static func ended(_ stream: RawClient) -> Bool {
        stream.closed || stream.text.hasSuffix("\r\n0\r\n\r\n")
    }

    @Test func aReloadEndsTheStreamsOfARemovedOrMovedKeyAndKeepsTheOthers() async throws {
        let stateDir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daygate-streams-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let current = Mutex(Self.config(clients: [Self.anna, Self.ben, Self.carl], stateDir: stateDir))
        let runtime = try GatewayRuntime(config: current.withLock { $0 }, httpClient: .shared)
        let gateway = ReloadableGateway(
            runtime: runtime, source: { current.withLock { $0 } }, heartbeat: .milliseconds(200))
        try await withServedGateway(gateway) { port in

            let anna = try await Self.openStream(port, key: Self.anna.key)
            let ben = try await Self.openStream(port, key: Self.ben.key)
            let carl = try await Self.openStream(port, key: Self.carl.key)
            defer { for stream in [anna, ben, carl] { stream.close() } }
            for stream in [anna, ben, carl] {
                #expect(stream.status == 200 && stream.text.contains("event: hello"), "\(stream.text)")
            }

            // Anna's key goes, Carl's now opens Ben's profile, Ben's stays.
            var moved = Self.carl
            moved.profile = "ben"
            current.withLock { $0.clients = [Self.ben, moved] }
            let outcome = await gateway.reload()
            #expect(outcome.result == .applied, "\(outcome.problems)")

            for (name, stream) in [("anna", anna), ("carl", carl)] {
                let (held, _) = await stream.wait(timeout: .seconds(10)) { Self.ended($0) }
                #expect(held, "\(name)'s stream still open after the reload")
                #expect(stream.text.contains("event: end"), "\(name): \(stream.text.suffix(300))")
            }
            let mark = ben.received.count
            let (beat, _) = await ben.wait(timeout: .seconds(10)) {
                String(decoding: $0.received[mark...], as: UTF8.self).contains("event: heartbeat")
            }
            #expect(beat && !Self.ended(ben), "Ben's stream ended with the others")

            // The removed key opens no new stream.
            let again = try await Self.openStream(port, key: Self.anna.key)
            defer { again.close() }
            #expect(again.status == 401, "\(again.text)")
        }
        await runtime.shutdown()
    }
}
