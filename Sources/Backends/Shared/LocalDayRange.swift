import Model

/// The local days a calendar operation covers, from its arguments: `date`, or `from`…`to`
/// (both, inclusive, at most `maximumDays`), or else today. A client's mistake is an
/// `ErrorDetail` `bad_parameter`.
struct LocalDayRange: Equatable {
    var first: LocalDate
    var last: LocalDate

    init(_ arguments: [String: ArgumentValue], today: LocalDate, maximumDays: Int) throws {
        switch (arguments["from"]?.date, arguments["to"]?.date) {
        case (let from?, let to?):
            if arguments["date"] != nil { throw ErrorDetail.badParameter("give either date or from and to, not both") }
            guard from <= to else { throw ErrorDetail.badParameter("to (\(to)) is before from (\(from))") }
            let days = from.days(to: to) + 1
            guard days <= maximumDays else {
                throw ErrorDetail.badParameter("from…to spans \(days) days; at most \(maximumDays)")
            }
            (first, last) = (from, to)
        case (nil, nil):
            let day = arguments["date"]?.date ?? today
            (first, last) = (day, day)
        case (nil, _?): throw ErrorDetail.badParameter("to needs from as well")
        case (_?, nil): throw ErrorDetail.badParameter("from needs to as well")
        }
    }
}
