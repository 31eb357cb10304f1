import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTLS
import HummingbirdTesting
import Model
import NIOSSL
import Testing

@testable import Backends

/// A backend behind TLS with its own certificate authority (a self-hosted server, or the bench's
/// far links): trusted through `limits.upstream_ca_file`, refused without it, and a file that is
/// no CA stops the start with a clear message.
@Suite("Upstream TLS")
struct UpstreamTLSTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls")
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A TLS server on 127.0.0.1 answering `GET /ping` with `pong`, its certificate signed by
    /// Tests/Fixtures/tls/ca.pem; `body` gets its port.
    static func withServer(_ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        router.get("/ping") { _, _ in "pong" }
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(path("server.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: path("server-key.pem"), format: .pem)))
        let app = Application(
            router: router, server: try .tls(.http1(), tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.ahc(.https)) { client in
            try await body(try #require(client.port))
        }
    }

    static func ping(_ http: UpstreamHTTP, port: Int) async throws -> UpstreamHTTP.Response {
        try await http.send(
            url: "https://127.0.0.1:\(port)/ping", timeout: 5, source: UpstreamSource(profile: "p", backend: "prsnl"),
            retry: .none)
    }

    @Test func aBackendSignedByTheConfiguredCAIsTrusted() async throws {
        try UpstreamHTTP.checkTrustedCAFile(Self.path("ca.pem"))
        let trusting = UpstreamHTTP(trustedCAFile: Self.path("ca.pem"))
        let plain = UpstreamHTTP()
        // The clients are shut down whatever happens (a client dropped without it traps).
        let outcome: Result<Void, any Error>
        do {
            try await Self.withServer { port in
                let answer = try await Self.ping(trusting, port: port)
                #expect(answer.status == 200)
                #expect(String(decoding: answer.body, as: UTF8.self) == "pong")
                await #expect(throws: BackendError.self) { _ = try await Self.ping(plain, port: port) }
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await trusting.shutdown()
        await plain.shutdown()
        try outcome.get()
    }

    @Test func aFileThatHoldsNoCertificateIsRefusedAtTheStart() throws {
        #expect(throws: UpstreamHTTP.TrustedCAError.self) {
            try UpstreamHTTP.checkTrustedCAFile(Self.path("server-key.pem"))
        }
        #expect(throws: UpstreamHTTP.TrustedCAError.self) {
            try UpstreamHTTP.checkTrustedCAFile(Self.path("missing.pem"))
        }
    }
}
