import Backends
import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Synchronization
import Testing
import Yams

// MARK: - Part 1 invariants

enum FuzzInvariants {
    /// Returns (rule, detail) for every invariant the answer breaks:
    /// (a) an answer at all, within 10 s (checked by the caller);
    /// (b) no 5xx except 502/504, and those carry the aggregate envelope (an object with
    ///     `sections`); `/readyz` may say 503 with `{"status":"not_ready"}` (its contract);
    /// (c) the body is JSON, labelled `application/json`, except: 304 and 204 (empty), HEAD
    ///     (empty — or the JSON the router built, which NIO never sends for HEAD; the raw-socket
    ///     test checks that on the wire), `/metrics` 200 (text/plain);
    /// (d) every 4xx JSON body is `{"error":{"code": string, "message": string}}`;
    /// (e) code and message hold no control characters;
    /// (f) neither a header nor the body contains a configured secret.
    static func check(request: FuzzRequest, response: TestResponse, secrets: [String]) -> [(String, String)] {
        var problems: [(String, String)] = []
        let status = response.status.code
        let body = Data(response.body.readableBytesView)
        let path = String(request.uri.prefix { $0 != "?" && $0 != "#" })
        // The router ignores empty segments: /metrics/ and //metrics are /metrics.
        let routePath = "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        let json = body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: body)
        let contentType = response.headers[.contentType]?.lowercased() ?? ""

        if status >= 500 {
            if status == 502 || status == 504 {
                // A HEAD answer has no body (the router generates HEAD from GET and drops it).
                if request.method != .head, (json as? [String: Any])?["sections"] == nil {
                    problems.append(
                        ("b: \(status) without the aggregate envelope", "no \"sections\" object in the body"))
                }
            } else if !(status == 503 && routePath == "/readyz"
                && (json as? [String: Any])?["status"] as? String == "not_ready")
            {
                problems.append(("b: \(status) answer", "5xx other than 502/504"))
            }
        }

        if status == 304 || status == 204 {
            if !body.isEmpty { problems.append(("c: \(status) with a body", "\(body.count) bytes")) }
        } else if request.method == .head {
            if !body.isEmpty, json == nil { problems.append(("c: HEAD body that is not JSON", "\(body.count) bytes")) }
        } else if routePath == "/metrics", status == 200 {
            if !contentType.hasPrefix("text/plain") { problems.append(("c: /metrics not text/plain", contentType)) }
        } else if json == nil {
            problems.append(("c: body is not JSON", "\(body.count) bytes, Content-Type \(contentType)"))
        } else if !contentType.hasPrefix("application/json") {
            problems.append(("c: JSON body labelled \(contentType.isEmpty ? "(none)" : contentType)", ""))
        }

        if (400..<500).contains(status), !body.isEmpty {
            let error = (json as? [String: Any])?["error"] as? [String: Any]
            let code = error?["code"] as? String
            let message = error?["message"] as? String
            if code == nil || message == nil {
                problems.append(("d: \(status) body not {\"error\":{\"code\",\"message\"}}", ""))
            }
            for (field, text) in [("code", code), ("message", message)] {
                if let text, text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                    problems.append(("e: control character in error \(field)", fuzzShown(text, 120)))
                }
            }
        }

        let bodyText = String(decoding: body, as: UTF8.self)
        for secret in secrets {
            if bodyText.contains(secret) {
                problems.append(("f: a secret in the body", String(secret.prefix(6)) + "…"))
            }
            if response.headers.contains(where: { $0.value.contains(secret) }) {
                problems.append(("f: a secret in a header", String(secret.prefix(6)) + "…"))
            }
        }
        return problems
    }
}

enum FuzzSecrets {
    /// Every configured credential and every session value in the vault (the set
    /// `AllBackendsTests.secretsNeverReachLogsOrAnswers` looks for, plus the ones it omits).
    static func collect(_ demo: DemoHarness, adding known: [String] = []) async -> [String] {
        let profile = demo.config.profiles["default"]!
        var secrets = known
        secrets += [
            TickedifySimulator.demoPassword, FitIQSimulator.demoPassword, FitIQSimulator.demoAPIKey,
            PRSNLSimulator.demoPassword,
        ]
        secrets += profile.secrets.map { $0.reveal() }
        // Sessions and tokens are kept per account (`AccountScope`), not per profile.
        let scopes = [
            "tickedify": profile.tickedify.map(TickedifyClient.scope)?.description,
            "fitiq": profile.fitiq.map(FitIQClient.scope)?.description,
            "prsnl": profile.prsnl.map(PRSNLClient.scope)?.description,
        ]
        for (backend, name) in [
            ("tickedify", "session_cookie"), ("fitiq", "access_token"), ("fitiq", "refresh_token"),
            ("prsnl", "access_token"), ("prsnl", "refresh_token"),
        ] {
            guard let scope = scopes[backend] ?? nil else { continue }
            if let value = await demo.runtime.vault.value(profile: scope, backend: backend, name: name) {
                secrets.append(value)
            }
        }
        // Short values ("1" flags and the like) are not secrets and would match anything.
        return Array(Set(secrets.filter { $0.count >= 8 })).sorted()
    }
}

struct FuzzViolation: Sendable {
    var request: FuzzRequest
    var phase: FuzzPhase
    var rule: String
    var detail: String
    var status: Int?
    var body: ByteBuffer?

    var line: String {
        let bodyText =
            body.map { fuzzShown(String(decoding: $0.readableBytesView.prefix(240), as: UTF8.self), 240) } ?? "-"
        return
            "case \(request.index) [\(phase.rawValue)] \(rule)\(detail.isEmpty ? "" : " (\(fuzzShown(detail, 200)))"): "
            + "\(request.summary) → \(status.map(String.init) ?? "no answer") \(bodyText)"
    }
}

struct FuzzReport: Sendable {
    var seed: UInt64
    var requests = 0
    var statuses: [Int: Int] = [:]
    var phaseStatuses: [String: [Int: Int]] = [:]
    var violations: [FuzzViolation] = []
    var lastETag: String?
    var secretCount = 0

    mutating func add(_ violation: FuzzViolation) { violations.append(violation) }

    var statusSummary: String {
        let all = statuses.keys.sorted().map { "\($0)×\(statuses[$0]!)" }.joined(separator: " ")
        let phases = phaseStatuses.keys.sorted().map { phase in
            "\(phase): "
                + phaseStatuses[phase]!.keys.sorted().map { "\($0)×\(phaseStatuses[phase]![$0]!)" }.joined(
                    separator: " ")
        }
        return all + " | " + phases.joined(separator: " | ")
    }

    func describe() -> String {
        var kinds: [String: Int] = [:]
        for violation in violations {
            kinds[
                "\(violation.rule) — \(violation.request.method.rawValue) → \(violation.status.map(String.init) ?? "-")",
                default: 0] += 1
        }
        let seedText = "0x" + String(seed, radix: 16)
        return """
            \(violations.count) invariant violations in \(requests) requests (seed \(seedText); replay with \
            DAYGATE_FUZZ_SEED=\(seedText), one case with DAYGATE_FUZZ_CASE=<n>)
            by kind:
            \(kinds.sorted { $0.value > $1.value }.map { "  \($0.value)× \($0.key)" }.joined(separator: "\n"))
            first \(min(20, violations.count)):
            \(violations.prefix(20).map { "  " + $0.line }.joined(separator: "\n"))
            """
    }
}
