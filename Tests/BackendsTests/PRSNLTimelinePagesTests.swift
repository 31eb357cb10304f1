import Gates
import Model
import Testing

@testable import Backends

/// A timeline page's fetch runs in a task of its own (shared by the sections that ask together);
/// that task prefers the executor of the request that started it (`TaskPlacement`).
@Suite struct PRSNLTimelinePagesTests {
    @Test func aPagesFetchPrefersTheExecutorOfTheRequestThatStartedIt() async throws {
        let pages = PRSNLTimelinePages()
        let executor = QueueTaskExecutor()
        let inside = try await TaskPlacement.$preferred.withValue(executor) {
            try await pages.page(limit: 5, cursor: nil) { .bool(executor.isPreferredHere) }
        }
        #expect(inside == .bool(true))
        let outside = try await pages.page(limit: 5, cursor: nil) { .bool(executor.isPreferredHere) }
        #expect(outside == .bool(false))
    }
}
