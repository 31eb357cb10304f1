import Foundation
import Model

/// The seeded knowledge base: about two weeks of saved links, articles, videos and notes for the
/// demo user (local times in the household's zone, stored as UTC), a few captured today and
/// yesterday, plus the hard-coded "Test User" that PRSNL falls back to, with a few items of its own.
/// Ids and timestamps derive from the seed day only, so a restart gives the same data.
enum PRSNLSeed {
    struct Spec {
        var day: Int
        var time: (Int, Int)
        var title: String
        var url: String? = nil
        var summary: String? = nil
        var content: String? = nil
        var type: String
        var contentType: String
        var category: String? = nil
        var platform: String? = nil
        var thumbnail: String? = nil
        var duration: Int? = nil
        var status = "completed"
        var tags: [String] = []
        /// Minutes after creation of the last update; nil = never updated.
        var updatedAfter: Int? = 0
        var user = PRSNLSimulator.demoUserID
    }

    static let demoUser = PRSNLUser(
        id: PRSNLSimulator.demoUserID, email: PRSNLSimulator.demoEmail, password: PRSNLSimulator.demoPassword,
        firstName: "Alex", lastName: "Jansen", isVerified: true
    )

    static let testUser = PRSNLUser(
        id: PRSNLSimulator.testUserID, email: "test@example.com", password: nil, firstName: "Test", lastName: "User",
        isVerified: false
    )

    static var specs: [Spec] {
        [
            Spec(
                day: -13, time: (9, 10), title: "Local-first software: You own your data, in spite of the cloud",
                url: "https://www.inkandswitch.com/local-first/",
                summary:
                    "Ink & Switch's essay on seven ideals for local-first apps and how CRDTs make offline, collaborative software practical.",
                content:
                    "Cloud apps like Google Docs and Trello are popular because they enable real-time collaboration...",
                type: "article", contentType: "article", category: "development",
                tags: ["local-first", "crdt", "architecture"],
                updatedAfter: 4
            ),
            Spec(
                day: -12, time: (20, 45), title: "Sourdough starter from scratch",
                url: "https://www.kingarthurbaking.com/recipes/sourdough-starter-recipe",
                summary:
                    "Seven-day feeding schedule for a wild-yeast starter: equal weights flour and water, discard half daily, keep it warm.",
                content: "Day 1: combine 113g whole rye flour with 113g cool water...", type: "article",
                contentType: "article",
                category: "cooking", tags: ["cooking", "sourdough"]
            ),
            Spec(
                day: -11, time: (7, 30), title: "Swift concurrency: Behind the scenes",
                url: "https://developer.apple.com/videos/play/wwdc2021/10254/",
                summary:
                    "WWDC21 session on the cooperative thread pool, continuations and actor hopping in Swift's runtime.",
                type: "video", contentType: "video", category: "development", platform: "apple",
                thumbnail: "https://devimages-cdn.apple.com/wwdc-services/images/119/5290/5290_wide_250x141_2x.jpg",
                duration: 2261,
                tags: ["swift", "concurrency"]
            ),
            Spec(
                day: -10, time: (13, 5), title: "Ideas for Emma's birthday",
                summary: "Climbing-gym party or picnic in the Vondelpark; cake from the bakery Noor recommended.",
                content:
                    "- climbing gym party (book 2 weeks ahead)\n- picnic if the weather holds\n- cake: ask Noor about the bakery\n- budget ~150",
                type: "note", contentType: "note", category: "personal", tags: ["family", "ideas"], updatedAfter: 95
            ),
            Spec(
                day: -9, time: (18, 20), title: "The Grug Brained Developer", url: "https://grugbrain.dev/",
                summary:
                    "A tongue-in-cheek guide to fighting complexity: say no, prefer simple code, test at the right level.",
                type: "link", contentType: "link", category: "development", tags: ["programming", "humor"]
            ),
            Spec(
                day: -8, time: (11, 0), title: "Postgres full-text search is good enough!",
                url: "https://rachbelaid.com/postgres-full-text-search-is-good-enough/",
                summary:
                    "tsvector, tsquery, ranking and trigram fuzzy matching: how far Postgres gets you before Elasticsearch.",
                content:
                    "Search is a common feature of web applications and Postgres offers full-text search built in...",
                type: "article", contentType: "article", category: "development", tags: ["postgres", "search"]
            ),
            Spec(
                day: -7, time: (21, 10), title: "Build a standing desk for under $100",
                url: "https://www.youtube.com/watch?v=6Af6b_wyiwI",
                summary: "Plywood top, pipe-flange legs and a crossbar; the build takes one afternoon.",
                type: "video", contentType: "video", category: "diy", platform: "youtube",
                thumbnail: "https://i.ytimg.com/vi/6Af6b_wyiwI/hqdefault.jpg", duration: 912, tags: ["diy", "home"]
            ),
            Spec(
                day: -6, time: (8, 40), title: "Notes from 1:1 with Maria",
                summary: "Take over the onboarding redesign; write the proposal before sprint planning.",
                content:
                    "- onboarding redesign is mine from next sprint\n- proposal draft by Thursday\n- ask Tom about analytics events",
                type: "note", contentType: "note", category: "work", tags: ["work", "meetings"]
            ),
            Spec(
                day: -5, time: (16, 30), title: "Amstel river cycling loop (42 km)",
                url: "https://www.komoot.com/tour/1148820392",
                summary: "Flat loop from Amsterdam along the Amstel to Ouderkerk and back through the polders.",
                type: "link", contentType: "link", category: "outdoors", status: "bookmark",
                tags: ["cycling", "weekend"]
            ),
            Spec(
                day: -4, time: (12, 15), title: "Falsehoods programmers believe about time",
                url: "https://infiniteundo.com/post/25326999628/falsehoods-programmers-believe-about-time",
                summary: "A list of assumptions about clocks, days and time zones that do not hold.",
                type: "article", contentType: "article", category: "development", tags: ["programming", "time"]
            ),
            Spec(
                day: -3, time: (19, 0), title: "hummingbird-project/hummingbird",
                url: "https://github.com/hummingbird-project/hummingbird",
                summary: "Lightweight, flexible HTTP server framework written in Swift, built on SwiftNIO.",
                type: "github_repo", contentType: "github_repo", category: "development", platform: "github",
                tags: ["swift", "server"]
            ),
            Spec(
                day: -2, time: (10, 20), title: "Slow productivity", url: "https://calnewport.com/slow-productivity/",
                summary: "Do fewer things, work at a natural pace, obsess over quality.",
                type: "article", contentType: "article", category: "productivity", tags: ["productivity", "books"]
            ),
            Spec(
                day: -2, time: (15, 0), title: "Untitled", url: "https://www.ft.com/content/3f2a9c1e-paywalled",
                type: "link", contentType: "link", status: "failed", tags: [], updatedAfter: 1
            ),
            Spec(
                day: -1, time: (8, 5), title: "Structured concurrency in Swift, explained",
                url: "https://www.swiftbysundell.com/articles/structured-concurrency/",
                summary: "Task groups, async let and cancellation propagation with worked examples.",
                type: "article", contentType: "article", category: "development", tags: ["swift", "concurrency"]
            ),
            Spec(
                day: -1, time: (22, 30), title: "Book club shortlist",
                summary: "Piranesi, The Dispossessed, Klara and the Sun.",
                content:
                    "Piranesi (Susanna Clarke)\nThe Dispossessed (Ursula K. Le Guin)\nKlara and the Sun (Kazuo Ishiguro)",
                type: "note", contentType: "note", category: "personal", tags: ["books", "personal"]
            ),
            Spec(
                day: 0, time: (7, 10), title: "An interactive intro to CRDTs",
                url: "https://jakelazaroff.com/words/an-interactive-intro-to-crdts/",
                summary: "Builds a last-writer-wins register and map step by step, with live demos.",
                type: "article", contentType: "article", category: "development", tags: ["crdt", "local-first"]
            ),
            Spec(
                day: 0, time: (7, 45), title: "Groceries for the weekend",
                summary: "Rye flour, leeks, feta, oat milk, coffee beans.",
                content: "rye flour, leeks, feta, oat milk, coffee beans", type: "note", contentType: "note",
                category: "personal",
                tags: ["home", "cooking"]
            ),
            Spec(
                day: 0, time: (8, 20), title: "Untitled", url: "https://news.ycombinator.com/item?id=41234567",
                type: "link",
                contentType: "link", status: "pending", tags: ["to-read"]
            ),
            // The hard-coded fallback user's own items.
            Spec(
                day: -16, time: (10, 0), title: "Welcome to PRSNL",
                summary: "Your personal knowledge base. Capture links and notes.",
                content: "Welcome to PRSNL!", type: "note", contentType: "note", category: "personal",
                tags: ["welcome"],
                user: PRSNLSimulator.testUserID
            ),
            Spec(
                day: -6, time: (14, 0), title: "Test Article", url: "https://example.com/test-article",
                summary: "A test article.",
                content: "This is test content.", type: "article", contentType: "article", tags: ["test"],
                user: PRSNLSimulator.testUserID
            ),
            Spec(
                day: -1, time: (12, 0), title: "Test Video", url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
                summary: "A test video.",
                type: "video", contentType: "video", platform: "youtube",
                thumbnail: "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg",
                duration: 213, tags: ["test", "video"], user: PRSNLSimulator.testUserID
            ),
        ]
    }

    /// The seeded items. Nothing is captured after `now`: an item whose time of day has not come
    /// yet (the seed day is today, early in the morning) was captured a few minutes ago instead,
    /// in the same order, so "the newest item" is never one from the future.
    static func items(seedDay: String, timeZone: TimeZone, now: Date = Date()) -> [PRSNLItem] {
        guard let calendar = SeedCalendar(seedDay: seedDay, timeZone: timeZone) else { return [] }
        let nowMicros = Int64(now.timeIntervalSince1970 * 1_000_000)

        return specs.enumerated().map { index, spec in
            let digest = PRSNLSHA256.hash(Array("prsnl|\(seedDay)|\(index)".utf8))
            // Seconds and microseconds as a real capture would have them.
            let jitter =
                Int64(digest[16]) % 60 * Civil.microsPerSecond + Int64(
                    UInt32(digest[17]) << 16 | UInt32(digest[18]) << 8 | UInt32(digest[19])) % 1_000_000
            let planned = calendar.utcMicros(spec.day, spec.time) + jitter
            let created = min(planned, nowMicros - Int64(specs.count - index) * 60 * Civil.microsPerSecond)
            var metadata: JSONObject = [:]
            if let platform = spec.platform { metadata.append("platform", .string(platform)) }
            if spec.status == "failed" {
                metadata.append("error", .string("403 Client Error: Forbidden for url: \(spec.url ?? "")"))
            }
            return PRSNLItem(
                id: uuidV4String(digest),
                userID: spec.user,
                title: spec.title,
                url: spec.url,
                summary: spec.summary,
                content: spec.status == "completed" || spec.status == "bookmark" ? (spec.content ?? spec.summary) : nil,
                platform: spec.platform,
                type: spec.type,
                category: spec.category,
                contentType: spec.contentType,
                thumbnailURL: spec.thumbnail,
                duration: spec.duration,
                status: spec.status,
                createdAt: created,
                updatedAt: spec.updatedAfter.map { created + Int64($0) * 60 * Civil.microsPerSecond + 187_402 },
                tags: spec.tags,
                metadata: metadata,
                contentFingerprint: (spec.content ?? spec.summary).map { "sha256:" + PRSNLSHA256.hex($0) },
                sequence: index
            )
        }
    }
}
