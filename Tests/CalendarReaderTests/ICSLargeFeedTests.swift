import CalendarReader
import Foundation
import Testing

@Suite("ICS large feeds")
struct ICSLargeFeedTests {
    @Test func thousandsOfSeriesOnAFeedDefinedZone() throws {
        var body = ICSTestSupport.centralEuropeanVTimeZone("Customized Time Zone")
        for index in 0..<2_000 {
            body += "\nBEGIN:VEVENT\nUID:e\(index)\nDTSTART;TZID=Customized Time Zone:20200106T\(10 + index % 8)0000"
            body += "\nDURATION:PT1H\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE\nEND:VEVENT"
        }
        // The series count is what is tested, not the clock (a loaded debug build passed the
        // standard 2 s with 7,044 of the 8,000).
        let limits = ICSLimits(maximumDuration: .seconds(600))
        let calendar = try ICSCalendar(
            text: ICSTestSupport.feed(body), household: ICSTestSupport.amsterdam, limits: limits)
        let clock = ContinuousClock()
        var expansion: ICSExpansion?
        let elapsed = clock.measure {
            expansion = calendar.expand(
                from: ICSTestSupport.day("2026-03-23"), to: ICSTestSupport.day("2026-04-06"), limits: limits)
        }
        #expect(expansion?.occurrences.count == 2_000 * 4)
        #expect(elapsed < .seconds(20), "expanding took \(elapsed)")
    }
}
