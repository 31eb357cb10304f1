import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import Model
import NIOCore
import Simulators
import Testing

@testable import Gateway

/// Write bodies the gateway refuses itself, with a message that says what is wrong, before any
/// backend is called: a key given twice (at any depth, in any spelling), FitIQ servings below
/// its minimum, control characters in text.
@Suite("Write bodies: duplicates, bounds and control characters")
struct WriteBodyStrictnessTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    /// How many POSTs `kind` received on paths holding `fragment`.
    func writes(_ demo: DemoHarness, _ kind: SimulatorKind, _ fragment: String) -> Int {
        demo.simulator(kind).control.callCounts.filter { $0.key.hasPrefix("POST ") && $0.key.contains(fragment) }
            .values.reduce(0, +)
    }

    func post(_ client: some TestClientProtocol, _ path: String, _ body: String) async throws -> (
        status: HTTPResponse.Status, code: String?, message: String
    ) {
        let response = try await client.execute(
            uri: path, method: .post, headers: Self.json, body: ByteBuffer(string: body))
        let answer = try? response.json
        return (
            response.status, answer?["error"]?["code"]?.stringValue, answer?["error"]?["message"]?.stringValue ?? ""
        )
    }

    @Test func aKeyGivenTwiceIsRefusedAtAnyDepth() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let cases: [(path: String, body: String, key: String)] = [
                    ("/v1/tasks", #"{"title":"Melk kopen","title":"Brood kopen"}"#, #""title""#),
                    ("/v1/tasks", #"{"title":"Melk kopen","\u0074itle":"Brood kopen"}"#, #""title""#),
                    ("/v1/events", #"{"title":"x","meta":{"tags":[{"a":1,"b":2,"a":3}]}}"#, #""a""#),
                    (
                        "/v1/captures",
                        #"{"content":""# + String(repeating: "lorem ipsum ", count: 5000)
                            + #"","title":"t","tags":["a"],"title":"u"}"#,
                        #""title""#
                    ),
                ]
                for (path, body, key) in cases {
                    let answer = try await post(client, path, body)
                    #expect(answer.status == .badRequest, "\(path) \(body.prefix(80))")
                    #expect(answer.code == "bad_request")
                    #expect(answer.message.contains(key) && answer.message.contains("twice"), "\(answer.message)")
                }
                let nested = try await post(client, "/v1/events", #"{"title":"x","meta":{"tags":[{"a":1,"a":3}]}}"#)
                #expect(nested.message.contains("meta.tags[0]"), "\(nested.message)")
            }
            #expect(writes(demo, .tickedify, "/taak/") == 0)
            #expect(writes(demo, .eightalls, "/") == 0)
            #expect(writes(demo, .prsnl, "capture") == 0)
        }
    }

    @Test func servingsOutsideFitIQsRangeNeverReachFitIQ() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                for servings in ["0.001", "1e-7", "0.0099", "0", "-1", "100.5"] {
                    let answer = try await post(
                        client, "/v1/food-logs",
                        #"{"food_id":"00000000-0000-4000-8000-000000000001","food_source":"database","meal_type":"snack","servings":\#(servings)}"#
                    )
                    #expect(answer.status == .badRequest, "\(servings)")
                    #expect(answer.code == "bad_request", "\(servings)")
                    #expect(answer.message.contains("servings"), "\(servings): \(answer.message)")
                }
                // Beyond a double: not a number the decoder takes, refused as a body.
                let huge = try await post(
                    client, "/v1/food-logs",
                    #"{"food_id":"6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7","food_source":"database","meal_type":"snack","servings":1e999}"#
                )
                #expect(huge.status == .badRequest)
                let below = try await post(
                    client, "/v1/food-logs",
                    #"{"food_id":"6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7","food_source":"database","meal_type":"snack","servings":0.005}"#
                )
                #expect(below.message.contains("0.01"), "\(below.message)")
            }
            #expect(writes(demo, .fitiq, "food-logs") == 0)
        }
    }

    @Test func controlCharactersInTextAreNamedWithTheirField() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let start = "2026-12-01T10:00:00+01:00"
                let end = "2026-12-01T11:00:00+01:00"
                let cases: [(path: String, body: String, field: String, character: String)] = [
                    (
                        "/v1/events", #"{"title":"Stand\u0007up","start":"\#(start)","end":"\#(end)"}"#, "title",
                        "U+0007"
                    ),
                    (
                        "/v1/events",
                        #"{"title":"Standup","location":"Room\u001b[31m","start":"\#(start)","end":"\#(end)"}"#,
                        "location", "U+001B"
                    ),
                    (
                        "/v1/events",
                        #"{"title":"Standup","description":"line\nline\u0000","start":"\#(start)","end":"\#(end)"}"#,
                        "description", "U+0000"
                    ),
                    ("/v1/tasks", #"{"title":"Melk\u0001kopen"}"#, "title", "U+0001"),
                    ("/v1/captures", #"{"url":"https://example.org/a","title":"A\rB"}"#, "title", "U+000D"),
                    ("/v1/captures", #"{"url":"https://example.org/a","tags":["ok","b\u0008d"]}"#, "tag", "U+0008"),
                ]
                for (path, body, field, character) in cases {
                    let answer = try await post(client, path, body)
                    #expect(answer.status == .badRequest, "\(body)")
                    #expect(
                        answer.message.hasPrefix(field) || answer.message.contains(" \(field) "),
                        "\(body): \(answer.message)")
                    #expect(answer.message.contains("control characters"), "\(body): \(answer.message)")
                    #expect(answer.message.contains(character), "\(body): \(answer.message)")
                }
                // A raw control character (not escaped) is not JSON: the message says that, and where.
                let raw = try await post(client, "/v1/tasks", "{\"title\":\"Melk\u{7}kopen\"}")
                #expect(raw.status == .badRequest)
                #expect(raw.message.contains("control character (U+0007)"), "\(raw.message)")
                #expect(raw.message.contains("column 15"), "\(raw.message)")
            }
            #expect(writes(demo, .tickedify, "/taak/") == 0)
            #expect(writes(demo, .eightalls, "/") == 0)
            #expect(writes(demo, .prsnl, "capture") == 0)
        }
    }
}
