import CalendarReader
import Foundation
import Model

extension ICSBackend {
    /// A feed's body, read as `ICSFeedFetcher` reads it (`ICSCalendar(bytes:household:)`) and
    /// expanded as `ICSEventsOperation` expands it, over the week from the reference day.
    public var answerReaders: [BackendAnswerReader] {
        [
            BackendAnswerReader("ics.feed") { body, zone in
                let calendar = try ICSCalendar(bytes: body, household: zone)
                let from = BackendAnswerReader.referenceDay
                _ = calendar.expand(from: from, to: from.adding(days: 7))
            }
        ]
    }
}
