import AsyncHTTPClient
import Foundation
import Logging
import Model
import NIOCore
import NIOHTTP1
import Simulators
import Testing

@testable import Backends

/// Capturing links and notes against the PRSNL simulator (demo login, or its static token).
@Suite("PRSNL captures")
struct PRSNLCapturesTests {
    static let zone = TimeZone(identifier: "Europe/Amsterdam")!
    static let post = "POST /api/capture"

    /// With `staticToken` the profile uses `PRSNLSimulator.demoToken` (no login call).
    static func withSimulator(
        staticToken: Bool = false, rateLimit: Int? = 30,
        _ body: (RunningSimulator, OperationContext) async throws -> Void
    ) async throws {
        let options = PRSNLSimulator.Options(
            seedDay: LocalDate.today(in: zone).description, timeZone: zone, rateLimitPerMinute: rateLimit
        )
        let sim = try await PRSNLSimulator(options: options).start()
        let endpoint = BackendEndpoint(baseURL: sim.apiBaseURL)
        let settings =
            staticToken
            ? PRSNLSettings(endpoint: endpoint, token: Secret(PRSNLSimulator.demoToken))
            : PRSNLSettings(
                endpoint: endpoint, email: PRSNLSimulator.demoEmail, password: Secret(PRSNLSimulator.demoPassword))
        try await SimulatorBackedTest.run(sim, profile: ProfileConfig([settings]), zone: zone, body)
    }

    static func context(_ profile: ProfileConfig) -> OperationContext {
        SimulatorBackedTest.context(profile, zone: zone)
    }

    static func call(_ sim: RunningSimulator, _ method: HTTPMethod, _ path: String) async throws -> JSONValue {
        try await SimulatorBackedTest.call(sim, method, path)
    }

    /// The item as PRSNL stored it (`GET /api/items/{id}`, no auth).
    static func stored(_ sim: RunningSimulator, _ id: String) async throws -> JSONValue {
        try await call(sim, .GET, "/api/items/" + id)
    }

    static func timeline(_ context: OperationContext) async throws -> [KnowledgeItem] {
        let operation = PRSNLTimelineOperation()
        let output = try await operation.fetch(
            try operation.normalise(["limit": .int(5)], clock: RequestClock(now: Date(), timeZone: zone)),
            context: context)
        return try JSONDecoder().decode([KnowledgeItem].self, from: output.body)
    }

    static func error(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: -

    @Test func aLinkIsCapturedAsLinkAndShowsOnTheTimeline() async throws {
        try await Self.withSimulator { sim, context in
            let input = CaptureInput(
                url: " https://example.org/swift-concurrency ", title: "Swift concurrency",
                tags: ["Swift", "swift", " Concurrency ", "SWIFT"]
            )
            let answer = try await PRSNLCaptures.capture(input, context: context)
            let id = try #require(answer["id"]?.stringValue)
            #expect(answer["status"] == .string("pending"))
            #expect(answer["content_type"] == .string("link"))
            #expect(answer["tags"] == .array([.string("swift"), .string("concurrency")]))
            #expect(answer["url"] == .string("https://example.org/swift-concurrency"))
            #expect(answer["title"] == .string("Swift concurrency"))
            #expect(sim.control.calls(Self.post) == 1)

            // What PRSNL stored: an explicit content_type went over the wire (else: a 500).
            let item = try await Self.stored(sim, id)
            #expect(item["content_type"] == .string("link"))
            #expect(item["tags"] == .array([.string("swift"), .string("concurrency")]))

            let newest = try #require(try await Self.timeline(context).first)
            #expect(newest.id == id)
            #expect(newest.title == "Swift concurrency")
            #expect(newest.url == "https://example.org/swift-concurrency")
            #expect(newest.tags == ["swift", "concurrency"])
        }
    }

    /// PRSNL keeps a capture's text in `raw_content`, which its item read does not return: the
    /// item shows the text daygate captured it with, for that account only.
    @Test func aCapturedNoteShowsTheTextItWasCapturedWith() async throws {
        try await Self.withSimulator { sim, context in
            let text = "Buy new shin guards\nsize 38, before Saturday"
            let note = try await PRSNLCaptures.capture(CaptureInput(content: text), context: context)
            let id = try #require(note["id"]?.stringValue)
            #expect(try await Self.stored(sim, id)["content"] == .null, "PRSNL itself gives no content")
            let output = try await PRSNLItemOperation().fetch(["id": .string(id)], context: context)
            let item = try JSONDecoder().decode(KnowledgeItem.self, from: output.body)
            #expect(item.content == text)
            // Another account's item of the same id would not get it: the text is kept per account.
            var other = context
            other.profile = ProfileConfig([
                PRSNLSettings(
                    endpoint: BackendEndpoint(baseURL: sim.apiBaseURL), token: Secret(PRSNLSimulator.demoToken))
            ])
            let scope = try #require(other.profile.prsnl.map(PRSNLClient.scope))
            #expect(await PRSNLCapturedNotes.shared(other, scope: scope).text(of: id) == nil)
        }
    }

    @Test func theCapturedTextsKeptAreBounded() {
        var index: String? = nil
        var dropped: [String] = []
        for n in 0..<5 {
            let next = PRSNLCapturedNotes.index(index, adding: "id\(n)", kept: 3)
            index = next.index
            dropped += next.dropped
        }
        #expect(index == "id2\nid3\nid4")
        #expect(dropped == ["id0", "id1"])
        #expect(PRSNLCapturedNotes.index(index, adding: "id2", kept: 3).index == "id3\nid4\nid2")
    }

    @Test func aNoteIsCapturedAsNoteAndAValidTypeIsKept() async throws {
        try await Self.withSimulator { sim, context in
            let note = try await PRSNLCaptures.capture(
                CaptureInput(content: "Buy new shin guards", tags: ["Family"]), context: context)
            #expect(note["content_type"] == .string("note"))
            #expect(
                try await Self.stored(sim, try #require(note["id"]?.stringValue))["content_type"] == .string("note"))

            let article = try await PRSNLCaptures.capture(
                CaptureInput(url: "http://example.org/a", contentType: "article"), context: context)
            #expect(
                try await Self.stored(sim, try #require(article["id"]?.stringValue))["content_type"]
                    == .string("article"))

            // `auto` is what breaks PRSNL for a URL: it is replaced.
            let auto = try await PRSNLCaptures.capture(
                CaptureInput(url: "https://example.org/b", contentType: "auto"), context: context)
            #expect(auto["content_type"] == .string("link"))
            #expect(
                try await Self.stored(sim, try #require(auto["id"]?.stringValue))["content_type"] == .string("link"))

            // A URL and a note together are a link.
            let both = try await PRSNLCaptures.capture(
                CaptureInput(url: "https://example.org/c", content: "why it matters"), context: context)
            #expect(both["content_type"] == .string("link"))
            #expect(sim.control.calls(Self.post) == 4)

            let titles = try await Self.timeline(context).map(\.id)
            for answer in [note, article, auto, both] {
                #expect(titles.contains(answer["id"]?.stringValue ?? "-"))
            }
        }
    }

    @Test func everyFieldIsCheckedBeforeAnythingIsSent() async throws {
        try await Self.withSimulator { sim, context in
            let cases: [(String, CaptureInput)] = [
                ("nothing", CaptureInput()),
                ("blank", CaptureInput(url: "  ", content: " \n ", title: "t")),
                ("ftp", CaptureInput(url: "ftp://example.org/file")),
                ("javascript", CaptureInput(url: "javascript:alert(1)")),
                ("no scheme", CaptureInput(url: "example.org/page")),
                ("no host", CaptureInput(url: "https://")),
                ("spaces", CaptureInput(url: "https://example.org/a b")),
                ("long url", CaptureInput(url: "https://example.org/" + String(repeating: "a", count: 2048))),
                ("content", CaptureInput(content: String(repeating: "c", count: 50_001))),
                ("title", CaptureInput(content: "x", title: String(repeating: "t", count: 501))),
                ("title control", CaptureInput(content: "x", title: "a\u{1B}[31mb")),
                ("21 tags", CaptureInput(content: "x", tags: (0...20).map { "tag\($0)" })),
                ("long tag", CaptureInput(content: "x", tags: [String(repeating: "g", count: 51)])),
                ("empty tag", CaptureInput(content: "x", tags: ["ok", " "])),
                ("content_type", CaptureInput(content: "x", contentType: "podcast")),
                ("content_type case", CaptureInput(content: "x", contentType: "Note")),
            ]
            for (label, input) in cases {
                let error = await Self.error { _ = try await PRSNLCaptures.capture(input, context: context) }
                let refusal = error as? WriteRefusal
                #expect(refusal?.status == 400, "\(label)")
                #expect(refusal?.code == "bad_request", "\(label)")
            }
            #expect(sim.control.totalCalls == 0, "refused before any upstream call, the login included")

            // The limits themselves are fine.
            let edge = CaptureInput(
                content: String(repeating: "c", count: 50_000), title: String(repeating: "t", count: 500),
                tags: (0..<20).map { "t\($0)" + String(repeating: "g", count: 40) }
            )
            try edge.validate()
            let answer = try await PRSNLCaptures.capture(edge, context: context)
            #expect(answer["tags"]?.arrayValue?.count == 20)
        }
    }

    @Test func decodesTheClientsSnakeCase() throws {
        let json = #"{"url":"https://example.org","title":"T","tags":["a"],"content_type":"article","extra":true}"#
        let input = try JSONDecoder().decode(CaptureInput.self, from: Data(json.utf8))
        #expect(input == CaptureInput(url: "https://example.org", title: "T", tags: ["a"], contentType: "article"))
        #expect(try JSONDecoder().decode(CaptureInput.self, from: Data("{}".utf8)) == CaptureInput())
    }

    @Test func aDuplicateURLIsTheUpstreamsRefusal() async throws {
        try await Self.withSimulator { sim, context in
            _ = try await PRSNLCaptures.capture(
                CaptureInput(url: "https://example.org/twice", title: "Twice"), context: context)
            let error = await Self.error {
                _ = try await PRSNLCaptures.capture(CaptureInput(url: "https://example.org/twice"), context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .rejected)
            #expect(failure.status == 400)
            #expect(failure.message.contains("already exists"))
            #expect(sim.control.calls(Self.post) == 2)
        }
    }

    @Test func a429CarriesRetryAfterAndIsNotRetried() async throws {
        // An injected 429 (the simulator adds PRSNL's `Retry-After: 60`).
        try await Self.withSimulator(staticToken: true) { sim, context in
            sim.control.setFaults(SimulatorFaults(errorStatus: 429))
            let error = await Self.error {
                _ = try await PRSNLCaptures.capture(CaptureInput(content: "x"), context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .rateLimited)
            #expect(failure.status == 429)
            #expect(failure.retryAfter == 60)
            #expect(sim.control.calls(Self.post) == 1)
            #expect(sim.control.totalCalls == 1)
            sim.control.clearFaults()
        }
        // PRSNL's own limit (30 a minute, here 1).
        try await Self.withSimulator(staticToken: true, rateLimit: 1) { sim, context in
            _ = try await PRSNLCaptures.capture(CaptureInput(content: "first"), context: context)
            let error = await Self.error {
                _ = try await PRSNLCaptures.capture(CaptureInput(content: "second"), context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .rateLimited)
            #expect(failure.retryAfter == 60)
            // Its sentence, not its code (`{"error":"rate_limit_exceeded","message":"Rate limit…"}`).
            #expect(failure.message.contains("429") && failure.message.contains("Rate limit exceeded: 1 per 1 minute"))
            #expect(!failure.message.contains("rate_limit_exceeded"), "\(failure.message)")
            #expect(sim.control.calls(Self.post) == 2)
        }
    }

    /// A 500 that saved nothing: not sent again; the newest items read back once, the capture
    /// not among them, so the failure stands.
    @Test func aServerErrorIsNotRetried() async throws {
        try await Self.withSimulator(staticToken: true) { sim, context in
            sim.control.setFaults(SimulatorFaults(errorStatus: 500, method: "POST"))
            let error = await Self.error {
                _ = try await PRSNLCaptures.capture(CaptureInput(url: "https://example.org/x"), context: context)
            }
            let failure = try #require(error as? BackendError)
            #expect(failure.kind == .status)
            #expect(failure.status == 500)
            #expect(sim.control.calls(Self.post) == 1)
            #expect(sim.control.calls("GET /api/timeline") == 1, "read back once")
            sim.control.clearFaults()
        }
    }

    /// PRSNL saved the capture and then answered 500 (or a proxy 502): the timeline shows it, so
    /// the capture is answered as done — sent once, saved once. A link by its URL, a note by its
    /// title and tags.
    @Test func aCaptureSavedBeforeA5xxIsAnsweredAsDone() async throws {
        try await Self.withSimulator(staticToken: true) { sim, context in
            for status in [500, 502] {
                sim.control.resetStats()
                sim.control.setFaults(SimulatorFaults(errorStatus: status, errorAfter: true, method: "POST"))
                let url = "https://example.org/na-de-fout-\(status)"
                let link = try await PRSNLCaptures.capture(
                    CaptureInput(url: url, tags: ["Later"]), context: context)
                let note = try await PRSNLCaptures.capture(
                    CaptureInput(content: "Bellen over de fout \(status)", title: "Fout \(status)"), context: context)
                sim.control.clearFaults()
                #expect(sim.control.calls(Self.post) == 2)
                let items = try await Self.timeline(context)
                #expect(items.filter { $0.url == url }.map(\.id) == [link["id"]?.stringValue])
                #expect(items.filter { $0.title == "Fout \(status)" }.map(\.id) == [note["id"]?.stringValue])
            }
        }
    }

    /// What is read back must be the capture sent: another URL, title or tags is not it, nor an
    /// item saved before the capture was sent.
    @Test func onlyTheCaptureSentMatches() {
        let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
        func row(
            url: String? = "https://a.example/x", title: String = "Untitled", tags: [String] = ["t"],
            created: TimeInterval = 2
        ) -> JSONValue {
            .object([
                "id": .string("i"), "url": url.map(JSONValue.string) ?? .null, "title": .string(title),
                "tags": .array(tags.map(JSONValue.string)),
                "createdAt": .string(LenientDate.format(sentAt.addingTimeInterval(created), in: .gmt)),
            ])
        }
        let link: JSONValue = .object(["url": .string("https://a.example/x"), "tags": .array([.string("t")])])
        #expect(PRSNLCaptureReadBack.match([row()], sent: link, sentAt: sentAt) != nil)
        #expect(PRSNLCaptureReadBack.match([row(url: "https://a.example/y")], sent: link, sentAt: sentAt) == nil)
        #expect(PRSNLCaptureReadBack.match([row(tags: [])], sent: link, sentAt: sentAt) == nil)
        #expect(PRSNLCaptureReadBack.match([row(created: -600)], sent: link, sentAt: sentAt) == nil)
        let note: JSONValue = .object(["content": .string("x"), "tags": .array([])])
        #expect(PRSNLCaptureReadBack.match([row(url: nil, tags: [])], sent: note, sentAt: sentAt) != nil)
        #expect(
            PRSNLCaptureReadBack.match([row(url: nil, title: "Other", tags: [])], sent: note, sentAt: sentAt) == nil)
        #expect(PRSNLCaptureReadBack.match([row(tags: [])], sent: note, sentAt: sentAt) == nil, "a link is no note")
    }

    @Test func anExpiredTokenIsRefreshedAndTheCaptureSentOnce() async throws {
        try await Self.withSimulator { sim, context in
            _ = try await PRSNLCaptures.capture(CaptureInput(content: "logs in"), context: context)
            _ = try await Self.call(sim, .POST, "/_sim/tokens/expire")
            sim.control.resetStats()
            let answer = try await PRSNLCaptures.capture(
                CaptureInput(content: "after expiry", title: "Second"), context: context)
            #expect(sim.control.calls(Self.post) == 2, "the 401 wrote nothing; sent again after the refresh")
            #expect(sim.control.calls("POST /api/auth/refresh") == 1)
            let items = try await Self.timeline(context)
            #expect(items.filter { $0.title == "Second" }.map(\.id) == [answer["id"]?.stringValue])
        }
    }

    /// PRSNL limits captures (30 a minute) and search, nothing else: a capture's 429 holds back
    /// the next capture, never the timeline.
    @Test func aCaptureAtItsLimitLeavesTheTimelineReadable() async throws {
        try await Self.withSimulator(rateLimit: 1) { sim, context in
            _ = try await PRSNLCaptures.capture(CaptureInput(content: "the one a minute"), context: context)
            let limited = await Self.error {
                _ = try await PRSNLCaptures.capture(CaptureInput(content: "one too many"), context: context)
            }
            #expect((limited as? BackendError)?.kind == .rateLimited)
            sim.control.resetStats()
            let items = try await Self.timeline(context)
            #expect(items.contains { $0.title != nil })
            #expect(sim.control.calls("GET /api/timeline") >= 1)
            // The next capture waits for PRSNL's Retry-After without calling it.
            let held = await Self.error {
                _ = try await PRSNLCaptures.capture(CaptureInput(content: "still too soon"), context: context)
            }
            #expect((held as? BackendError)?.kind == .rateLimited)
            #expect(sim.control.calls(Self.post) == 0)
        }
    }

    /// PRSNL's search service answers its own failure inside a 200 (`{"results": [],
    /// "error": "…"}`): a failure of the section, not "nothing found" kept for five minutes.
    @Test func aSearchThatFailedInsideA200IsAFailure() async throws {
        try await Self.withSimulator { sim, context in
            let operation = PRSNLSearchOperation()
            let arguments = try operation.normalise(
                ["q": .string("swift")], clock: RequestClock(now: Date(), timeZone: Self.zone))
            _ = try await SimulatorBackedTest.call(
                sim, .POST, "/_sim/options", json: #"{"search_error":"connection to server was lost"}"#)
            let error = await Self.error { _ = try await operation.fetch(arguments, context: context) }
            #expect((error as? BackendError)?.kind == .status)
            #expect((error as? BackendError)?.message.contains("connection to server was lost") == true)
            _ = try await SimulatorBackedTest.call(sim, .POST, "/_sim/options", json: #"{"search_error":null}"#)
            _ = try await operation.fetch(arguments, context: context)
        }
    }

    /// A refused refresh that does not say the token is spent (a proxy's 403) keeps the kept
    /// login; PRSNL's own refusal (401 "Invalid or expired refresh token") gives it up.
    @Test func onlyARefusalThatNamesTheTokenGivesTheLoginUp() async throws {
        try await Self.withSimulator { sim, context in
            _ = try await Self.timeline(context)
            let scope = PRSNLClient.scope(try #require(context.profile.prsnl)).description
            let kept = try #require(await context.vault.value(profile: scope, backend: "prsnl", name: "refresh_token"))
            _ = try await Self.call(sim, .POST, "/_sim/tokens/expire")
            sim.control.setFaults(SimulatorFaults(errorStatus: 403, method: "POST"))
            var fresh = context
            fresh.sessions = SessionRegistry(vault: context.vault)
            let error = await Self.error { _ = try await Self.timeline(fresh) }
            sim.control.clearFaults()
            #expect((error as? BackendError)?.kind == .reauthSuspected)
            #expect(await context.vault.value(profile: scope, backend: "prsnl", name: "refresh_token") == kept)
            // The same token refused by PRSNL itself (spent meanwhile): given up, then the password.
            _ = try await SimulatorBackedTest.call(
                sim, .POST, "/api/auth/refresh", json: #"{"refresh_token":"\#(kept)"}"#)
            sim.control.resetStats()
            fresh.sessions = SessionRegistry(vault: context.vault)
            _ = try await Self.timeline(fresh)
            #expect(sim.control.calls("POST /api/auth/login") == 1)
            #expect(await context.vault.value(profile: scope, backend: "prsnl", name: "refresh_token") != kept)
        }
    }

    /// PRSNL's timeline answers an expired token with the hard-coded test user's items, not a
    /// 401. The token check goes out beside the read (one round trip to a far server); the
    /// read's answer is used only when the check passed, so the test user's items never show.
    @Test func anExpiredTokenNeverShowsTheTestUsersTimeline() async throws {
        try await Self.withSimulator { sim, context in
            let before = try await Self.timeline(context)
            _ = try await Self.call(sim, .POST, "/_sim/tokens/expire")
            sim.control.resetStats()
            let after = try await Self.timeline(context)
            #expect(after.map(\.id) == before.map(\.id))
            #expect(!after.contains { ["Test Video", "Test Article", "Welcome to PRSNL"].contains($0.title ?? "") })
            #expect(sim.control.calls("POST /api/auth/refresh") == 1)
            #expect(sim.control.calls("GET /api/timeline") == 2, "the read beside the failed check, then again")
        }
    }

    @Test func notConfigured() async throws {
        let error = await Self.error {
            _ = try await PRSNLCaptures.capture(CaptureInput(content: "x"), context: Self.context(ProfileConfig()))
        }
        #expect((error as? BackendError)?.kind == .notConfigured)
    }
}
