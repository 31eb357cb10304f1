import HTTPTypes
import Model
import Testing

@testable import Gateway

/// `Admission` without a server: the one decision the router and the hot path both ask.
struct AdmissionTests {
    static func config(keys: Bool, origins: [String] = ["https://ha.example.org"]) -> DaygateConfig {
        DaygateConfig(
            profiles: ["default": ProfileConfig(), "ben": ProfileConfig()],
            clients: keys ? [ClientConfig(name: "ben-phone", key: "ben-key-0123456789", profile: "ben")] : [],
            cors: CORSSettings(origins: origins)
        )
    }

    static func asked(
        _ method: HTTPRequest.Method = .get, _ path: String = "/v1/today", host: String? = "localhost",
        authorization: String? = nil, origin: String? = nil
    ) -> Admission.Asked {
        Admission.Asked(method: method, path: path, host: host, authorization: authorization, origin: origin)
    }

    @Test func loopbackModeServesTheDefaultProfileToThisMachineOnly() {
        let admission = Admission(config: Self.config(keys: false))
        #expect(admission.decide(Self.asked()) == .serve(profile: "default", client: nil, corsOrigin: nil))
        #expect(
            admission.decide(Self.asked(host: "127.0.0.1:8787"))
                == .serve(profile: "default", client: nil, corsOrigin: nil))
        guard case .refuse(let error, _) = admission.decide(Self.asked(host: "evil.example")) else {
            Issue.record("a foreign Host was served")
            return
        }
        #expect(error.status == .forbidden && error.detail.code == "host_not_allowed")
    }

    @Test func withKeysTheKeyPicksTheProfile() {
        let admission = Admission(config: Self.config(keys: true))
        #expect(
            admission.decide(Self.asked(authorization: "Bearer ben-key-0123456789"))
                == .serve(profile: "ben", client: "ben-phone", corsOrigin: nil))
        guard case .refuse(let error, _) = admission.decide(Self.asked(authorization: "Bearer wrong")) else {
            Issue.record("a wrong key was served")
            return
        }
        #expect(error.status == .unauthorized)
        #expect(
            admission.decide(Self.asked(.get, "/healthz")) == .serve(profile: "default", client: nil, corsOrigin: nil))
    }

    @Test func corsIsForListedOriginsOnly() {
        let admission = Admission(config: Self.config(keys: false))
        var preflight = Self.asked(.options, origin: "https://ha.example.org")
        preflight.isPreflight = true
        #expect(admission.decide(preflight) == .preflight(origin: "https://ha.example.org"))
        preflight.origin = "https://elsewhere.example"
        guard case .refuse(let error, nil) = admission.decide(preflight) else {
            Issue.record("an unlisted origin's preflight was answered")
            return
        }
        #expect(error.status == .forbidden)
        #expect(
            admission.decide(Self.asked(origin: "https://ha.example.org"))
                == .serve(profile: "default", client: nil, corsOrigin: "https://ha.example.org"))
        #expect(
            admission.decide(Self.asked(origin: "https://elsewhere.example"))
                == .serve(profile: "default", client: nil, corsOrigin: nil))
    }

    @Test func boundsComeFirst() {
        let admission = Admission(config: Self.config(keys: true))
        func status(_ change: (inout Admission.Asked) -> Void) -> Int? {
            var asked = Self.asked(.post, "/v1/tasks", origin: "https://ha.example.org")
            change(&asked)
            guard case .refuse(let error, let origin) = admission.decide(asked) else { return nil }
            #expect(origin == "https://ha.example.org", "a listed origin can read the refusal")
            return error.status.code
        }
        #expect(status { $0.headerCount = 101 } == 431)
        #expect(status { $0.headerBytes = 40_000 } == 431)
        #expect(status { $0.contentLength = "70000" } == 413)
        #expect(status { $0.contentType = "text/plain" } == 415)
        #expect(status { $0.contentType = "application/json; charset=utf-8" } == 401, "then the key")
    }
}
