import Testing

@testable import Cache

/// A batch of cache writes trims the store the first time, after a failure, and when the bytes
/// written since the last trim reach the margin (1/256 of the cap).
struct CacheTrimScheduleTests {
    @Test func theFirstBatchTrimsThenOnlyEveryMarginsWorth() {
        var schedule = CacheTrimSchedule()
        // A cap of 256,000 bytes: a margin of 1,000.
        let decisions = [10, 400, 599, 1, 999, 5_000].map { schedule.batch(writing: $0, maxBytes: 256_000) }
        // The first after opening; then at 1,000 bytes since the last trim; then one batch
        // larger than the margin.
        #expect(decisions == [true, false, false, true, false, true])
        #expect(schedule.writtenSinceTrim == 0)
    }

    @Test func aFailedBatchMakesTheNextTrim() {
        var schedule = CacheTrimSchedule()
        var decisions = [10, 10].map { schedule.batch(writing: $0, maxBytes: 1 << 20) }
        schedule.batchFailed()
        decisions.append(schedule.batch(writing: 10, maxBytes: 1 << 20))
        #expect(decisions == [true, false, true])
    }

    @Test func aSmallCapTrimsEveryBatch() {
        var schedule = CacheTrimSchedule()
        let decisions = (0..<5).map { _ in schedule.batch(writing: 1, maxBytes: 200) }
        #expect(decisions == Array(repeating: true, count: 5))
    }
}
