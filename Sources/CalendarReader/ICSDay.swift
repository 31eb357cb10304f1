import ModelCore

/// A local day and the occurrences that touch it.
public struct ICSDay: Sendable, Equatable {
    public var date: LocalDate
    public var occurrences: [ICSOccurrence]

    public init(date: LocalDate, occurrences: [ICSOccurrence]) {
        self.date = date
        self.occurrences = occurrences
    }
}
