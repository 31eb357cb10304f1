import AsyncHTTPClient
import Backends
import Foundation
import Model
import Simulators
import Testing

/// What a backend's hostile answer can cost the gateway is bounded: a non-2xx body is read to
/// `UpstreamHTTP.maxErrorBodyBytes` only, a body trickled or never ended stops at the call's time
/// limit, and an error message is scrubbed in time linear in a bounded length.
@Suite("Hostile upstream bodies")
struct HostileBodyTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!

    static func send(_ faults: SimulatorFaults, timeout: TimeInterval = 5, secrets: Set<String> = []) async throws
        -> Result<UpstreamHTTP.Response, BackendError>
    {
        let simulator = try await EightAllsSimulator(
            options: .init(seedDay: LocalDate.today(in: zone).description, timeZone: zone)
        ).start()
        simulator.control.setFaults(faults)
        defer { Task { await simulator.stop() } }
        let http = UpstreamHTTP(client: .shared, redactor: SecretRedactor(secrets: secrets), retry: .none)
        do {
            return .success(
                try await http.send(
                    .GET, url: simulator.apiBaseURL + "/events", timeout: timeout,
                    source: UpstreamSource(profile: "p", backend: "eightalls")))
        } catch let error as BackendError {
            return .failure(error)
        }
    }

    @Test(.timeLimit(.minutes(1))) func anErrorBodyIsReadToItsLimitOnly() async throws {
        let response = try await Self.send(SimulatorFaults(errorStatus: 500, hostileBody: .huge)).get()
        #expect(response.status == 500)
        #expect(response.body.count == UpstreamHTTP.maxErrorBodyBytes)
        #expect(response.bodyTruncated)
        let quadratic = try await Self.send(SimulatorFaults(errorStatus: 500, hostileBody: .quadratic)).get()
        #expect(quadratic.body.count == HostileBody.quadratic.bytes?.count)
        #expect(!quadratic.bodyTruncated)
        let error = UpstreamHTTP.error(for: quadratic, backend: "eightalls")
        #expect(error.kind == .status)
        #expect(error.message.count <= 260)
    }

    @Test(.timeLimit(.minutes(1))) func aBodyThatNeverEndsStopsAtTheCallsTimeLimit() async throws {
        for body in [HostileBody.slow, .endless] {
            let began = ContinuousClock.now
            let outcome = try await Self.send(SimulatorFaults(hostileBody: body), timeout: 1)
            let took = ContinuousClock.now - began
            guard case .failure(let error) = outcome else {
                Issue.record("\(body): answered \(outcome)")
                continue
            }
            // The endless body may pass the 10 MB cap first on a fast machine; either ends it.
            #expect([.timeout, .badResponse].contains(error.kind), "\(body): \(error)")
            #expect(took < .seconds(15), "\(body) held the call \(took)")
        }
    }

    @Test func aSecretCutInTwoByTheLimitIsStillRedacted() {
        let redactor = SecretRedactor(secrets: ["hunter2-secret-password"])
        let cut = Data(#"{"detail":"login failed for hunter2-sec"#.utf8)
        let whole = String(decoding: redactor.redact(cut, truncated: true), as: UTF8.self)
        #expect(!whole.contains("hunter2"), "\(whole)")
        #expect(whole.hasSuffix(SecretRedactor.mask))
        // Not cut: a word that only starts like the secret stays.
        let text = Data(#"{"detail":"hunter2-sec is not it"}"#.utf8)
        #expect(redactor.redact(text) == text)
    }

    @Test func theScrubberReadsABoundedPrefixAndStillMasksWhatItShows() {
        let bait = #"{"detail": ""# + String(repeating: "a.", count: 20_000) + #""}"#
        #expect(SecretRedactor.scrubPatterns(bait).unicodeScalars.count <= SecretRedactor.scanLimit)
        // The linear patterns still find what the backtracking ones did.
        let cases: [(String, String)] = [
            ("cookie PHPSESSID=abc123def; path=/", "abc123def"),
            ("connect.sid=s%3Axyz987 expired", "s%3Axyz987"),
            ("see https://anna:pw-123@cal.example/x.ics", "pw-123"),
            ("x-https://bob:geheim9@host/", "geheim9"),
        ]
        for (text, secret) in cases {
            let scrubbed = BackendError.scrub(text)
            #expect(!scrubbed.contains(secret), "\(text) → \(scrubbed)")
        }
        #expect(BackendError.scrub("a.b.c.session.d done") == "a.b.c.session.d done")
    }
}
