import Foundation
import Model

/// Whether a food log FitIQ did not confirm was stored all the same, found by reading the day's
/// logs once.
///
/// A 5xx can come after the log was stored (a proxy's 502/504 once the app wrote, an app that
/// fails after its insert), and a timeout or a connection lost after sending leaves no answer at
/// all. Then the gateway reads the logs of the day the log was meant for (`GET
/// /api/v1/food-logs`, the same read `fitiq.food_logs` makes) and looks for the one it sent:
/// the same food, source, meal, servings and notes, the same `logged_at` when one was sent,
/// created no earlier than the moment it was sent (less ``clockSlack`` for FitIQ's clock); the
/// newest such. Found: the write is answered as the success it was. Not found (or the read
/// fails): the original failure stands, and the write's outcome stays unknown — FitIQ may still
/// be writing behind its proxy. A log of the same food the person made elsewhere in those same
/// seconds would be taken for it; FitIQ's answers carry nothing that tells the two apart.
/// Pure apart from ``find(_:sentAt:expected:client:zone:)``: tested without sockets.
enum FitIQFoodLogReadBack {
    /// How far FitIQ's clock may lag the gateway's.
    static let clockSlack: TimeInterval = 60

    /// The row of `rows` (FitIQ FoodLogs) that is the log `input` sent at `sentAt`, if any.
    static func match(_ rows: [JSONValue], sent input: FoodLogInput, sentAt: Date) -> JSONValue? {
        let food = input.foodID.trimmingCharacters(in: .whitespaces).lowercased()
        let candidates = rows.compactMap { row -> (JSONValue, Date)? in
            guard let fields = LenientFields(row),
                fields.string("food_id")?.lowercased() == food,
                fields.string("food_source") == input.foodSource,
                fields.string("meal_type") == input.mealType,
                let servings = fields.value("servings")?.numberValue, abs(servings - input.servings) < 1e-9,
                (fields.string("notes") ?? "") == (input.notes ?? ""),
                let created = fields.string("created_at").flatMap({ LenientDate.parse($0) }),
                created >= sentAt.addingTimeInterval(-clockSlack)
            else { return nil }
            if let sent = input.loggedAtDate {
                guard let stored = fields.string("logged_at").flatMap({ LenientDate.parse($0) }),
                    abs(stored.timeIntervalSince(sent)) < 1
                else { return nil }
            }
            return (row, created)
        }
        return candidates.max { $0.1 < $1.1 }?.0
    }

    /// Reads the logs of the local day `expected` and returns the one `input` made, if stored.
    static func find(_ input: FoodLogInput, sentAt: Date, expected: LocalDate, client: FitIQClient, zone: TimeZone)
        async -> JSONValue?
    {
        let window = FitIQDayWindow(day: expected, zone: zone)
        guard let rows = try? await FitIQFoodLogsOperation.logs(in: window, client: client) else { return nil }
        return match(rows, sent: input, sentAt: sentAt)
    }
}
