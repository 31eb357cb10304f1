import AsyncHTTPClient
import Backends
import Foundation
import Gateway
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Model
import NIOCore
import OpenAPIKit
import Simulators
import Testing
import Yams

/// /v1/summary (and the Home Assistant page that uses it), /v1/sources, /metrics and the
/// request id on log lines, against the demo's simulators (one per backend of the catalog).
@Suite("Summary, sources, metrics and logs in the demo")
struct ObservabilityTests {
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    @Test func summaryHasEveryScalarFromTheSeededDay() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                let response = try await client.execute(uri: "/v1/summary", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] != nil)
                let body = try response.json
                #expect(body["date"] == .string(LocalDate.today(in: DemoHarness.zone).description))
                #expect(body["complete"] == .bool(true))
                #expect(body["stale"] == .bool(false))
                // The food logged (1,060) and the snack logged in words as a meal (250).
                #expect(body["kcal_today"] == .number(1310))
                #expect(body["kcal_remaining"] == .number(890))
                #expect(body["tasks_done"] == .number(1), "the seed completes one task today")
                let planned = try #require(body["tasks_planned"]?.numberValue)
                let plan = try await client.execute(uri: "/v1/plan", method: .get).json
                let taskSlots = plan["plan"]?.arrayValue?.filter { $0["kind"] == .string("task") }.count
                #expect(Int(planned) == taskSlots)
                #expect(body["next_dienst_club"]?.stringValue != nil)
                let nextDienst = try #require(body["next_dienst_start"]?.stringValue.flatMap { LenientDate.parse($0) })
                #expect(nextDienst > Date())
                let nextEvent = try #require(body["next_event_start"]?.stringValue.flatMap { LenientDate.parse($0) })
                #expect(nextEvent >= Date().addingTimeInterval(-5))
                #expect(body["next_event_title"]?.stringValue?.isEmpty == false)

                let unknown = try await client.execute(uri: "/v1/summary?date=2026-11-22", method: .get)
                #expect(unknown.status == .badRequest)
                #expect(try unknown.json["error"]?["code"] == .string("bad_parameter"))
                let busted = try await client.execute(uri: "/v1/summary?_=123", method: .get)
                #expect(busted.status == .ok)
            }
        }
    }

    @Test func summaryIsJSONWithEveryKeyWhenEveryBackendIsDown() async throws {
        try await withDemo { demo in
            for kind in SimulatorKind.demoKinds {
                _ = try await demo.call(kind, .POST, "/_sim/faults", json: #"{"down":"reset"}"#)
            }
            try await demo.test { client in
                let response = try await client.execute(uri: "/v1/summary", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let body = try response.json
                #expect(body["complete"] == .bool(false))
                // The core's calendar keys, and every key each backend's summary part declares:
                // present, and null where its schema allows null.
                for key in ["next_event_title", "next_event_start"] {
                    #expect(body[key] == .null, "\(key)")
                }
                for (backend, part) in Self.summaryParts {
                    for (key, schema) in part.keySchemas {
                        #expect(body[key] != nil, "\(backend)'s summary key \(key) is missing")
                        if schema.nullable {
                            #expect(body[key] == .null, "\(backend)'s summary key \(key) with \(backend) down")
                        }
                    }
                    for section in part.sections.map(\.name) {
                        let status = body["sections"]?[section]?["status"]?.stringValue
                        #expect(status == "error", "\(backend)'s summary section \(section) with \(backend) down")
                    }
                }
                try Self.checkHomeAssistantConfig(against: body)
            }
        }
    }

    /// Every backend of the catalog with its part of `/v1/summary`, in registration order.
    static var summaryParts: [(backend: String, part: any SummaryPart)] {
        BackendCatalog.all.compactMap { backend in backend.summaryPart.map { (backend.name, $0) } }
    }

    /// docs/home-assistant.md: the YAML parses, points at /v1/summary, and every
    /// `value_template` and `json_attributes_path` it uses finds its value in a real answer.
    /// The `rest_command` is checked too: its URL filled with the "Next task" sensor's
    /// `task_id` attribute as Home Assistant would, sent to the demo, ticks the task off.
    @Test func homeAssistantConfigurationMatchesTheSummary() async throws {
        try await withDemo { demo in
            // The seeded plan's last task is at 17:00: plan one in the current hour, as the person
            // would in Tickedify, so a next task exists whenever the test runs.
            try await Self.planTaskInTheCurrentHour(demo)
            try await demo.test { client in
                let body = try await client.execute(uri: "/v1/summary", method: .get).json
                let checked = try Self.checkHomeAssistantConfig(against: body, requireValues: true)
                #expect(checked >= 12)

                let command = try Self.homeAssistantRestCommand("daygate_complete_task")
                #expect(command.method == "post")
                #expect(command.contentType == "application/json")
                let task = try #require(Self.resolve("next_task.task_id", in: body)?.stringValue)
                #expect(body["next_task_id"] == .string(task))
                let url = try Self.fillHomeAssistantTemplate(command.url, ["task_id": task])
                let path = try #require(URL(string: url)?.path(percentEncoded: true))
                #expect(url == "http://127.0.0.1:8787\(path)")
                let done = try await client.execute(
                    uri: path, method: .post, headers: [.contentType: command.contentType],
                    body: ByteBuffer(string: command.payload))
                #expect(done.status == .ok)
                #expect(try done.json["task"]?["id"] == .string(task))

                let plan = try await client.execute(uri: "/v1/plan", method: .get).json
                #expect(plan["plan"]?.arrayValue?.contains { $0["task_id"] == .string(task) } == false)
                let after = try await client.execute(uri: "/v1/summary", method: .get).json
                #expect(after["next_task_id"] != .string(task))
                let doneTitles = after["tasks"]?["done_titles"]?.arrayValue ?? []
                #expect(doneTitles.contains(body["next_task_title"] ?? .null), "in the completed list")
            }
        }
    }

    /// docs/home-assistant.md's household sensors (its second REST block): every template finds a
    /// value in a real `/v1/household/summary` of the demo's household.
    @Test func homeAssistantHouseholdSensorsMatchTheHouseholdSummary() async throws {
        try await withDemo(household: true) { demo in
            try await demo.test { client in
                let body = try await client.execute(uri: "/v1/household/summary", method: .get).json
                let checked = try Self.checkHomeAssistantConfig(
                    against: body, requireValues: true, block: 1, endpoint: "/v1/household/summary")
                #expect(checked >= 6)
            }
        }
    }

    /// `rest_command.daygate_log_meal` as the voice automation calls it: the sentence from the
    /// automation's slot, rendered into the payload as Home Assistant would, logs the meal.
    @Test func homeAssistantLogsAMealSaidAloud() async throws {
        let block = try #require(try Self.homeAssistantRESTBlocks().first)
        let yaml = try #require(try Yams.load(yaml: block) as? [String: Any])
        let command = try #require((yaml["rest_command"] as? [String: Any])?["daygate_log_meal"] as? [String: Any])
        let automation = try #require((yaml["automation"] as? [[String: Any]])?.first)
        let trigger = try #require((automation["triggers"] as? [[String: Any]])?.first)
        #expect(trigger["trigger"] as? String == "conversation")
        let slot = try #require(
            (trigger["command"] as? String)?.split(separator: "{").last?.split(separator: "}").first)
        let step = try #require(
            (automation["actions"] as? [[String: Any]])?.first {
                $0["action"] as? String == "rest_command.daygate_log_meal"
            })
        #expect((step["data"] as? [String: Any])?["text"] as? String == "{{ trigger.slots.\(slot) }}")
        let said = #"two "big" eggs and toast"#
        let payload = try Self.fillHomeAssistantTemplate(try #require(command["payload"] as? String), ["text": said])
        let url = try #require(command["url"] as? String)
        let path = try #require(URL(string: url)?.path(percentEncoded: true))
        #expect(url == "http://127.0.0.1:8787\(path)")
        let contentType = try #require(command["content_type"] as? String)
        try await withDemo { demo in
            try await demo.test { client in
                let logged = try await client.execute(
                    uri: path, method: .post,
                    headers: [.contentType: contentType],
                    body: ByteBuffer(string: payload))
                #expect(logged.status == .created)
                let meal = try logged.json["meal"]
                #expect(meal?["description"] == .string(said))
                #expect(meal?["status"] == .string("processing"))
                let nutrition = try await client.execute(uri: "/v1/nutrition", method: .get).json
                let meals = nutrition["meal_logs"]?.arrayValue ?? []
                #expect(meals.contains { $0["description"] == .string(said) })
            }
        }
    }

    /// Plans the open action "Was ophangen" at position 0 of the current local hour, through
    /// Tickedify's own API.
    static func planTaskInTheCurrentHour(_ demo: DemoHarness) async throws {
        let sim = demo.simulator(.tickedify)
        let cookie = try await TickedifySimulatorLogin.cookie(sim)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = DemoHarness.zone
        let hour = calendar.component(.hour, from: Date())
        let today = LocalDate.today(in: DemoHarness.zone)
        var request = HTTPClientRequest(url: sim.apiBaseURL + "/api/lijst/acties")
        request.headers.add(name: "Cookie", value: cookie)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let acties = try JSONDecoder().decode(
            JSONValue.self, from: Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
        let was = try #require(acties.arrayValue?.first { $0["tekst"] == .string("Was ophangen") }?["id"]?.stringValue)
        let status = try await TickedifySimulatorLogin.send(
            sim, .POST, "/api/dagelijkse-planning", cookie: cookie,
            json:
                #"{"actieId":"\#(was)","datum":"\#(today)","uur":\#(hour),"type":"taak","naam":"Was ophangen","duurMinuten":20,"positie":0}"#
        )
        #expect(status == 200)
    }

    /// docs/home-assistant.md's YAML for Home Assistant without the integration, in the page's
    /// order: the ```yaml blocks with REST sensors (`rest:`); the integration's own examples
    /// (a client key, an automation) are not among them.
    static func homeAssistantRESTBlocks() throws -> [String] {
        let page = try String(
            contentsOf: repositoryRoot.appendingPathComponent("docs/home-assistant.md"), encoding: .utf8)
        return page.components(separatedBy: "```yaml\n").dropFirst().compactMap { part in
            let block = part.components(separatedBy: "```").first ?? ""
            return (try? Yams.load(yaml: block) as? [String: Any])?["rest"] == nil ? nil : block
        }
    }

    /// A `rest_command` of docs/home-assistant.md.
    static func homeAssistantRestCommand(_ name: String) throws -> (
        url: String, method: String, contentType: String, payload: String
    ) {
        let block = try #require(try homeAssistantRESTBlocks().first)
        let yaml = try #require(try Yams.load(yaml: block) as? [String: Any])
        let commands = try #require(yaml["rest_command"] as? [String: Any])
        let command = try #require(commands[name] as? [String: Any], "rest_command \(name)")
        // The script ticks off what the "Next task" sensor's task_id attribute holds.
        let script = try #require((yaml["script"] as? [String: Any])?["daygate_tick_off_next_task"] as? [String: Any])
        let steps = try #require(script["sequence"] as? [[String: Any]])
        let call = try #require(steps.first { $0["action"] as? String == "rest_command.\(name)" })
        #expect(
            (call["data"] as? [String: Any])?["task_id"] as? String == "{{ state_attr('sensor.next_task', 'task_id') }}"
        )
        let sensors = try #require((yaml["rest"] as? [[String: Any]])?.first?["sensor"] as? [[String: Any]])
        let next = try #require(sensors.first { $0["name"] as? String == "Next task" }, "a sensor.next_task")
        #expect(next["json_attributes_path"] as? String == "$.next_task")
        #expect((next["json_attributes"] as? [String])?.contains("task_id") == true)
        return (
            try #require(command["url"] as? String), try #require(command["method"] as? String),
            try #require(command["content_type"] as? String), try #require(command["payload"] as? String)
        )
    }

    /// Home Assistant's rendering of `{{ name }}` in a template, strictly: every `{{ … }}` must
    /// be one of `values`' names (anything else — a filter, an expression, `{%` — fails); the
    /// value is inserted as it is.
    static func fillHomeAssistantTemplate(_ template: String, _ values: [String: String]) throws -> String {
        #expect(!template.contains("{%") && !template.contains("{#"), "only {{ name }} is supported")
        var output = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            let close = try #require(rest[open.upperBound...].range(of: "}}"), "an unclosed {{ in \(template)")
            let expression = rest[open.upperBound..<close.lowerBound].split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let name = expression[0]
            let value = try #require(values[name], "\(name) in \(template) is not a plain variable of the action")
            switch expression.dropFirst().first {
            case nil: output += value
            // Jinja's `tojson`: the value as a JSON string.
            case "tojson"?: output += String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            case let filter?: Issue.record("the filter \(filter) in \(template) is not supported")
            }
            rest = rest[close.upperBound...]
        }
        #expect(!rest.contains("}}"), "a stray }} in \(template)")
        return output + rest
    }

    /// Returns how many sensors it checked.
    @discardableResult
    /// - Parameters:
    ///   - block: which of the page's REST blocks (`homeAssistantRESTBlocks`; the first: `/v1/summary`'s sensors).
    ///   - endpoint: the path every `resource` of that block names.
    static func checkHomeAssistantConfig(
        against summary: JSONValue, requireValues: Bool = false, block index: Int = 0, endpoint: String = "/v1/summary"
    ) throws -> Int {
        let block = try #require(try homeAssistantRESTBlocks().dropFirst(index).first, "no REST block \(index)")
        let yaml = try #require(try Yams.load(yaml: block) as? [String: Any])
        let rest = try #require(yaml["rest"] as? [[String: Any]])
        var checked = 0
        for entry in rest {
            let resource = try #require(entry["resource"] as? String)
            #expect(resource.hasSuffix(endpoint), "\(resource)")
            let sensors =
                (entry["sensor"] as? [[String: Any]] ?? []) + (entry["binary_sensor"] as? [[String: Any]] ?? [])
            for sensor in sensors {
                let name = sensor["name"] as? String ?? "?"
                let template = try #require(sensor["value_template"] as? String, "\(name) has a value_template")
                let path = try #require(
                    Self.valuePath(template), "\(name): a template this test can check, got \(template)")
                let value = try #require(Self.resolve(path, in: summary), "\(name): \(path) is not in /v1/summary")
                switch value {
                case .object, .array: Issue.record("\(name): \(path) is not a scalar")
                case .null: if requireValues { Issue.record("\(name): \(path) is null in the demo") }
                default: break
                }
                if let attributesPath = sensor["json_attributes_path"] as? String {
                    #expect(attributesPath.hasPrefix("$."))
                    let object = try #require(
                        Self.resolve(String(attributesPath.dropFirst(2)), in: summary), "\(name): \(attributesPath)")
                    guard case .object(let fields) = object else {
                        Issue.record("\(name): \(attributesPath) is not an object")
                        continue
                    }
                    for attribute in sensor["json_attributes"] as? [String] ?? [] {
                        #expect(fields[attribute] != nil, "\(name): \(attributesPath).\(attribute) is missing")
                    }
                }
                checked += 1
            }
        }
        return checked
    }

    /// `{{ value_json.a.b }}` → `a.b`; nil for anything else.
    static func valuePath(_ template: String) -> String? {
        let trimmed = template.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("{{"), trimmed.hasSuffix("}}") else { return nil }
        let inner = trimmed.dropFirst(2).dropLast(2).trimmingCharacters(in: .whitespaces)
        guard inner.hasPrefix("value_json."),
            inner.dropFirst(11).allSatisfy({ $0.isLowercase || $0 == "_" || $0 == "." || $0.isNumber })
        else {
            return nil
        }
        return String(inner.dropFirst(11))
    }

    static func resolve(_ path: String, in value: JSONValue) -> JSONValue? {
        var current: JSONValue? = value
        for key in path.split(separator: ".") {
            guard case .object(let fields)? = current else { return nil }
            current = fields[String(key)]
        }
        return current
    }

    @Test func sourcesShowEachBackendAndEnrollmentWithoutSecrets() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/today", method: .get)
                _ = try await client.execute(uri: "/v1/today", method: .get)
                _ = try await demo.call(.eightalls, .POST, "/_sim/faults", json: #"{"error_status":500}"#)
                _ = try await client.execute(uri: "/v1/events", method: .get, headers: [.cacheControl: "no-cache"])

                let response = try await client.execute(uri: "/v1/sources", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                let body = try response.json
                #expect(body["profile"] == .string("default"))
                let sources = try #require(body["sources"]?.objectValue)
                // Every backend of the catalog: the demo's profile has them all.
                #expect(Set(sources.keys) == Set(BackendCatalog.names))
                // Each calendar with its own health, its address shown by host only.
                let calendars = try #require(sources["ics"]?["calendars"]?.arrayValue)
                #expect(calendars.compactMap { $0["name"]?.stringValue } == ["school", "holidays", "club", "work"])
                for calendar in calendars {
                    #expect(calendar["source"]?.stringValue?.hasSuffix("/…") == true)
                    #expect((calendar["calls"]?.numberValue ?? 0) >= 1)
                }
                #expect(!String(buffer: response.body).contains(ICSSimulator.demoSecretToken))
                for (name, source) in sources {
                    #expect(source["configured"] == .bool(true), "\(name)")
                    #expect(source["circuit"] == .string("closed"), "\(name)")
                    #expect((source["calls"]?.numberValue ?? 0) >= 1, "\(name) was called")
                    #expect(source["last_success"]?.stringValue != nil, "\(name)")
                }
                let events = try #require(sources["eightalls"])
                #expect(events["errors"] == .number(1))
                #expect(events["last_error"]?["code"] == .string("upstream_error"))
                #expect(events["last_error"]?["message"]?.stringValue?.contains("500") == true)
                #expect(events["last_error"]?["at"]?.stringValue != nil)
                #expect(events["cache"]?["hits"] == .number(1), "the second /v1/today")
                #expect(events["cache"]?["stale_serves"] == .number(1), "the no-cache refetch failed: stale served")

                let club = try #require(sources["kantinekoning"])
                let enrollments = try #require(club["enrollments"]?.arrayValue)
                #expect(enrollments.count == demo.config.profiles["default"]!.kantinekoning!.enrollments.count)
                for enrollment in enrollments {
                    #expect(enrollment["calls"] == .number(1))
                    #expect(enrollment["season_ended"] == .bool(false))
                    #expect(enrollment["circuit"] == .string("closed"))
                }
                #expect(club["calls"] == .number(Double(enrollments.count)))

                let text = String(buffer: response.body)
                for token in demo.config.profiles["default"]!.kantinekoning!.enrollments.map({ $0.token.reveal() }) {
                    #expect(!text.contains(token))
                }
                #expect(!text.contains(TickedifySimulator.demoPassword))
                #expect(!text.contains(FitIQSimulator.demoAPIKey))
            }
        }
    }

    @Test func metricsCoverRequestsUpstreamsCacheAndCircuits() async throws {
        try await withDemo { demo in
            try await demo.test { client in
                _ = try await client.execute(uri: "/v1/today", method: .get)
                _ = try await client.execute(uri: "/v1/today", method: .get)
                _ = try await client.execute(uri: "/v1/events?date=nope", method: .get)
                let response = try await client.execute(uri: "/metrics", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = String(buffer: response.body)
                for line in [
                    #"daygate_http_requests_total{route="/v1/today",method="GET",status="200"} 2"#,
                    #"daygate_http_requests_total{route="/v1/events",method="GET",status="400"} 1"#,
                    #"daygate_http_request_duration_seconds_count{route="/v1/today",method="GET",status="200"} 2"#,
                    #"daygate_upstream_requests_total{backend="eightalls",result="2xx"} 1"#,
                    #"daygate_upstream_request_duration_seconds_count{backend="eightalls"} 1"#,
                    #"daygate_cache_hits_total{operation="eightalls.events"} 1"#,
                    #"daygate_cache_misses_total{operation="eightalls.events"} 1"#,
                    // One entry per section of the day.
                    #"daygate_cache_entries{tier="memory"} \#(demo.sections(of: "/v1/today").count).0"#,
                    #"daygate_upstream_circuit_state{profile="default",backend="eightalls",scope=""} 0.0"#,
                ] {
                    #expect(text.contains(line), "missing: \(line)")
                }
                #expect(text.contains("daygate_http_request_duration_seconds_bucket{"))
                #expect(text.contains(#"daygate_cache_bytes{tier="sqlite"}"#))
            }
        }
    }

    @Test func everyLogLineOfARequestCarriesItsID() async throws {
        try await withDemo { demo in
            _ = try await demo.call(.fitiq, .POST, "/_sim/faults", json: #"{"error_status":500}"#)
            let id = try await demo.test { client in
                let response = try await client.execute(
                    uri: "/v1/today", method: .get, headers: [HTTPField.Name("X-Request-Id")!: "trace-me-42"])
                return response.headers[HTTPField.Name("X-Request-Id")!]
            }
            #expect(id == "trace-me-42")
            let lines = demo.logs.text.split(separator: "\n").filter {
                $0.contains("section") || $0.contains("GET /v1/today")
            }
            #expect(lines.count >= 6, "one line per section and the access line")
            for line in lines {
                #expect(line.contains("trace-me-42"), "no request id: \(line)")
            }
            #expect(lines.contains { $0.contains("section degraded") && $0.contains("fitiq") })
        }
    }
}
