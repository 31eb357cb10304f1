import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Cache

/// The gateway runs every task on NIO's event loops (they are the concurrency executor), so a
/// read of the state database may block the very thread another read needs to give its
/// connection back. GRDB's `async` read holds a reader connection across its suspensions; with
/// all readers held by tasks waiting for a thread that is blocked waiting for a reader, the
/// process hung (cold start, a handful of requests at once: 4 in 20 runs of a fresh demo).
/// Reads are synchronous, so a reader is only ever held by a thread running SQLite.
struct CacheDatabaseOneThreadTests {
    /// One thread for all the tasks that prefer it, like one event loop.
    final class OneThreadExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "daygate.test.one-thread")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    @Test func credentialAndEntryReadsOnOneThreadAllFinish() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daygate-one-thread-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CacheDatabase(stateDirectory: folder)
        let vault = SQLiteCredentialVault(database: database)
        try await vault.setValue("secret", profile: "p", backend: "b", name: "token")
        let executor = OneThreadExecutor()
        let reads = 64

        // The reads run on one thread; a watchdog tells a hang from a slow machine (they take
        // milliseconds; a hang never ends, and the blocked thread is left behind).
        let outcome = Outcome()
        Task {
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<reads {
                    group.addTask(executorPreference: executor) {
                        if index.isMultiple(of: 2) {
                            return await vault.value(profile: "p", backend: "b", name: "token") == "secret"
                        }
                        return (try? database.entry(forKey: "absent", now: Date())) == .some(nil)
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            outcome.finish(results)
        }
        Task {
            try? await Task.sleep(for: .seconds(30))
            outcome.finish(nil)
        }
        let results = await outcome.value
        #expect(results != nil, "reads of the state database on one thread never finished")
        #expect(results?.count == reads)
        #expect(results?.allSatisfy { $0 } == true)
    }

    /// The first of the reads' results and the watchdog's nil.
    final class Outcome: Sendable {
        private let state = Mutex<(result: [Bool]??, waiter: CheckedContinuation<[Bool]?, Never>?)>((nil, nil))

        func finish(_ result: [Bool]?) {
            let waiter: CheckedContinuation<[Bool]?, Never>? = state.withLock { state in
                guard state.result == nil else { return nil }
                state.result = .some(result)
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: result)
        }

        var value: [Bool]? {
            get async {
                await withCheckedContinuation { continuation in
                    let known: [Bool]?? = state.withLock { state in
                        if state.result == nil { state.waiter = continuation }
                        return state.result
                    }
                    if let known { continuation.resume(returning: known) }
                }
            }
        }
    }
}
