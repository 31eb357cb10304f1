import Backends
import Foundation
import Model
import Synchronization
import Testing

@Suite("Auth sessions")
struct AuthSessionTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1
                return $0
            }
        }
    }

    @Test func concurrentRenewalsRunOnce() async throws {
        let session = AuthSession(backend: "test", profile: "p", vault: MemoryCredentialVault(), vaultName: "token")
        let calls = Counter()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await session.renew(replacing: nil) {
                        try await Task.sleep(for: .milliseconds(50))
                        return "token-\(calls.next())"
                    }
                }
            }
            var all: [String] = []
            for try await token in group { all.append(token) }
            return all
        }
        #expect(Set(tokens) == ["token-1"])
        #expect(calls.value.withLock { $0 } == 1)
        // A caller still holding the old credential gets the new one without a new call.
        #expect(try await session.renew(replacing: nil) { "never" } == "token-1")
    }

    @Test("a refusal blocks renewals until a new login lands in the vault (daygate connect)")
    func aConnectedLoginLiftsTheBlock() async throws {
        let vault = MemoryCredentialVault()
        let session = AuthSession(backend: "test", profile: "p", vault: vault, vaultName: "token")
        let calls = Counter()
        let refuse: @Sendable () async throws -> String = {
            _ = calls.next()
            throw BackendError(.reauthRequired, backend: "test", message: "run daygate connect", retryAfter: 900)
        }
        await #expect(throws: BackendError.self) { _ = try await session.renew(replacing: nil, using: refuse) }
        // Blocked: no new attempt.
        await #expect(throws: BackendError.self) { _ = try await session.renew(replacing: nil, using: refuse) }
        #expect(calls.value.withLock { $0 } == 1)
        // `daygate connect` keeps a new credential: the next renewal takes it without a call.
        try await vault.setValue("connected", profile: "p", backend: "test", name: "token")
        #expect(try await session.renew(replacing: nil, using: refuse) == "connected")
        #expect(await session.current() == "connected")
        #expect(calls.value.withLock { $0 } == 1)
    }

    @Test func attemptsAreCappedPerWindowEvenWhenTheyFail() async throws {
        let vault = MemoryCredentialVault()
        let session = AuthSession(
            backend: "tickedify", profile: "p", vault: vault, vaultName: "cookie",
            limit: .init(attempts: 4, window: 900))
        let calls = Counter()
        for _ in 0..<4 {
            await #expect(throws: BackendError.self) {
                _ = try await session.renew(replacing: nil) {
                    _ = calls.next()
                    throw BackendError(.timeout, backend: "tickedify", message: "tickedify did not answer in 5 s")
                }
            }
        }
        do {
            _ = try await session.renew(replacing: nil) {
                _ = calls.next()
                return "cookie"
            }
            Issue.record("the fifth attempt in 15 minutes must be refused")
        } catch let error as BackendError {
            #expect(error.kind == .reauthBlocked)
            #expect((error.retryAfter ?? 0) > 800)
        }
        #expect(calls.value.withLock { $0 } == 4)

        // The count lives in the vault: a new session (a restart) is still capped.
        let restarted = AuthSession(
            backend: "tickedify", profile: "p", vault: vault, vaultName: "cookie",
            limit: .init(attempts: 4, window: 900))
        await #expect(throws: BackendError.self) {
            _ = try await restarted.renew(replacing: nil) {
                _ = calls.next()
                return "cookie"
            }
        }
        #expect(calls.value.withLock { $0 } == 4)
    }

    @Test func refusalsBlockUntilRetryAfter() async throws {
        let session = AuthSession(backend: "fitiq", profile: "p", vault: MemoryCredentialVault(), vaultName: "token")
        let calls = Counter()
        for _ in 0..<3 {
            await #expect(throws: BackendError.self) {
                _ = try await session.renew(replacing: nil) {
                    _ = calls.next()
                    throw BackendError(.reauthRequired, backend: "fitiq", message: "refused", retryAfter: 600)
                }
            }
        }
        #expect(calls.value.withLock { $0 } == 1)
    }
}

@Suite("Auth session checks")
struct AuthSessionCheckTests {
    @Test func concurrentChecksOfOneCredentialMakeOneCall() async throws {
        let session = AuthSession(
            backend: "tickedify", profile: "p", vault: MemoryCredentialVault(), vaultName: "cookie")
        let calls = AuthSessionTests.Counter()
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await session.check("sid=1") {
                        _ = calls.next()
                        try await Task.sleep(for: .milliseconds(100))
                        return true
                    }
                }
            }
            var all: [Bool] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers == Array(repeating: true, count: 20))
        #expect(calls.value.withLock { $0 } == 1)
    }

    @Test func aCheckIsNeverReusedOnceItHasEnded() async throws {
        let session = AuthSession(
            backend: "tickedify", profile: "p", vault: MemoryCredentialVault(), vaultName: "cookie")
        let calls = AuthSessionTests.Counter()
        #expect(try await session.check("sid=1") { calls.next() == 1 })
        #expect(try await session.check("sid=1") { calls.next() == 1 } == false)
        // Another credential is checked on its own.
        #expect(try await session.check("sid=2") { calls.next() == 3 })
        #expect(calls.value.withLock { $0 } == 3)
    }

    @Test func aFailedCheckFailsEveryoneWhoJoinedIt() async throws {
        let session = AuthSession(
            backend: "tickedify", profile: "p", vault: MemoryCredentialVault(), vaultName: "cookie")
        let calls = AuthSessionTests.Counter()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await session.check("sid=1") {
                            _ = calls.next()
                            try await Task.sleep(for: .milliseconds(100))
                            throw BackendError(.unavailable, backend: "tickedify", message: "tickedify answered 503")
                        }
                        return false
                    } catch {
                        return true
                    }
                }
            }
            var count = 0
            for await failed in group where failed { count += 1 }
            return count
        }
        #expect(failures == 5)
        #expect(calls.value.withLock { $0 } == 1)
    }
}
