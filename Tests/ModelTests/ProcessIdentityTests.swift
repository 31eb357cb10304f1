import Foundation
import Model
import Testing

/// Who holds a vault lease, and whether another process can tell that holder is gone.
@Suite("Process identity")
struct ProcessIdentityTests {
    static let observer = ProcessIdentity(boot: "b1", namespace: "4026531836", pid: 900, start: 5_000)
    static let holder = ProcessIdentity(boot: "b1", namespace: "4026531836", pid: 812, start: 4_200)

    @Test func aHolderWhoseIDIsFreeIsGone() {
        #expect(Self.holder.liveness(seenFrom: Self.observer, startOfPID: .some(nil)) == .gone)
    }

    @Test func aHolderWhoseIDALaterProcessTookIsGone() {
        #expect(Self.holder.liveness(seenFrom: Self.observer, startOfPID: .some(4_900)) == .gone)
    }

    @Test func aHolderThatStillRunsIsRunning() {
        #expect(Self.holder.liveness(seenFrom: Self.observer, startOfPID: .some(4_200)) == .running)
    }

    @Test func aHolderFromBeforeTheMachineRestartedIsGone() {
        var old = Self.holder
        old.boot = "b0"
        // Even when a process of this boot happens to have its id and start.
        #expect(old.liveness(seenFrom: Self.observer, startOfPID: .some(4_200)) == .gone)
    }

    @Test func aHolderInAnotherNamespaceOrUnreadableCannotBeJudged() {
        var other = Self.holder
        other.namespace = "4026532000"
        #expect(other.liveness(seenFrom: Self.observer, startOfPID: .some(nil)) == .unknown)
        #expect(Self.holder.liveness(seenFrom: Self.observer, startOfPID: nil) == .unknown)
        var noBoot = Self.observer
        noBoot.boot = ""
        #expect(Self.holder.liveness(seenFrom: noBoot, startOfPID: .some(nil)) == .unknown)
        var noStart = Self.holder
        noStart.start = 0
        #expect(noStart.liveness(seenFrom: Self.observer, startOfPID: .some(7)) == .unknown)
    }

    @Test func theIdentityReadsBackFromItsText() {
        #expect(ProcessIdentity(text: Substring(Self.holder.text)) == Self.holder)
        #expect(ProcessIdentity(text: "not an identity") == nil)
        #expect(ProcessIdentity(text: "b:n:-3:1") == nil)
    }

    @Test func theStartIsReadAfterTheNameWhateverTheNameHolds() {
        let fields = (3...52).map { $0 == 22 ? "98765" : "\($0)" }.joined(separator: " ")
        #expect(ProcessIdentity.start(ofStatLine: Substring("4242 (a) b (c)) " + fields)) == 98_765)
        #expect(ProcessIdentity.start(ofStatLine: "4242 (short) S 1 2") == nil)
    }

    @Test func thisProcessIsRunningAndKnowsItself() throws {
        let me = ProcessIdentity.current
        #expect(me.pid == getpid())
        #if os(Linux)
            #expect(!me.boot.isEmpty && !me.namespace.isEmpty && me.start > 0)
            #expect(ProcessIdentity.livenessOnThisMachine(me) == .running)
        #endif
    }

    @Test func aLeaseWhoseHolderIsGoneIsFreeBeforeItsEnd() {
        let now = Date(timeIntervalSince1970: 1_000)
        let held = VaultLeaseValue.text(
            holder: VaultLeaseValue.holder(call: "call-1", process: Self.holder), until: now.addingTimeInterval(60))
        let mine = VaultLeaseValue.holder(call: "call-2", process: Self.observer)
        #expect(VaultLeaseValue.isFree(held, for: mine, now: now, liveness: { _ in .gone }))
        #expect(!VaultLeaseValue.isFree(held, for: mine, now: now, liveness: { _ in .running }))
        #expect(!VaultLeaseValue.isFree(held, for: mine, now: now, liveness: { _ in .unknown }))
        // Its end still frees it whatever can be told of the holder.
        #expect(VaultLeaseValue.isFree(held, for: mine, now: now.addingTimeInterval(61), liveness: { _ in .running }))
        // A holder written without a process (an older daygate) waits for its end.
        let bare = VaultLeaseValue.text(holder: "3F2A", until: now.addingTimeInterval(60))
        #expect(!VaultLeaseValue.isFree(bare, for: mine, now: now, liveness: { _ in .gone }))
    }
}
