import HTTPTypes
import Hummingbird
import Model
import Testing

@testable import Gateway

/// The scope part of `Admission`'s decision, without a server: which key may write, read its
/// profile, and read the household.
struct AdmissionScopeTests {
    static let keys: [(name: String, scopes: Set<ClientScope>)] = [
        ("full", ClientScope.defaults), ("reader", [.read]), ("wall", [.read, .household]), ("hall", [.household]),
        ("all", ClientScope.all),
    ]

    static func admission(keys: Bool = true) -> Admission {
        Admission(
            config: DaygateConfig(
                profiles: ["default": ProfileConfig()],
                clients: keys
                    ? Self.keys.map {
                        ClientConfig(
                            name: $0.name, key: "\($0.name)-key-0123456789", profile: "default", scopes: $0.scopes)
                    } : []))
    }

    static func decide(_ admission: Admission, _ method: HTTPRequest.Method, _ path: String, key: String?)
        -> Admission.Decision
    {
        admission.decide(
            Admission.Asked(
                method: method, path: path, host: "localhost", authorization: key.map { "Bearer \($0)-key-0123456789" },
                contentLength: [.post, .put, .patch].contains(method) ? "2" : nil,
                contentType: [.post, .put, .patch].contains(method) ? "application/json" : nil))
    }

    /// Which keys each kind of request is served to.
    @Test(arguments: [
        (HTTPRequest.Method.get, "/v1/today", ["full", "reader", "wall", "all"]),
        (.head, "/v1/events", ["full", "reader", "wall", "all"]),
        (.post, "/v1/tasks", ["full", "all"]),
        (.put, "/v1/events/e1", ["full", "all"]),
        (.delete, "/v1/events/e1", ["full", "all"]),
        (.patch, "/v1/events/e1", ["full", "all"]),
        (.get, "/v1/household/today", ["wall", "hall", "all"]),
        (.get, "/v1/household/summary", ["wall", "hall", "all"]),
        (.post, "/v1/household/today", ["full", "all"]),
    ])
    func eachScopeOpensItsRequests(method: HTTPRequest.Method, path: String, served: [String]) {
        let admission = Self.admission()
        for key in Self.keys.map(\.name) {
            let decision = Self.decide(admission, method, path, key: key)
            if served.contains(key) {
                #expect(
                    decision == .serve(profile: "default", client: key, corsOrigin: nil), "\(key) \(method) \(path)")
            } else {
                guard case .refuse(let error, _) = decision else {
                    Issue.record("\(key) was served \(method) \(path)")
                    continue
                }
                #expect(error.status == .forbidden, "\(key) \(method) \(path)")
                #expect(error.detail.code == "insufficient_scope")
                #expect(error.detail.message.contains("its scopes: "), "\(error.detail.message)")
            }
        }
    }

    @Test func loopbackModeAndPathsWithoutARouteNeedNoScope() {
        let loopback = Self.admission(keys: false)
        for (method, path) in [(HTTPRequest.Method.post, "/v1/tasks"), (.get, "/v1/household/today")] {
            #expect(
                Self.decide(loopback, method, path, key: nil)
                    == .serve(profile: "default", client: nil, corsOrigin: nil))
        }
        #expect(loopback.scopes(ofClient: nil) == ClientScope.all)
        let keyed = Self.admission()
        #expect(keyed.scopes(ofClient: "wall") == [.read, .household])
        #expect(keyed.scopes(ofClient: "nobody") == [])
        #expect(
            Self.decide(keyed, .get, "/healthz", key: nil) == .serve(profile: "default", client: nil, corsOrigin: nil))
    }
}
