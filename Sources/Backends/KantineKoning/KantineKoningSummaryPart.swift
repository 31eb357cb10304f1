import Foundation
import Model
import OpenAPIKit

/// Kantine Koning's part of `/v1/summary`: the diensten ahead (`diensten`, up to ten, with
/// how many there are) and the next one (`next_dienst_start`, `next_dienst_club`), which
/// changes when it starts.
public struct KantineKoningSummaryPart: SummaryPart {
    /// How far ahead the summary looks for diensten.
    public static let dienstDays = 60

    struct Diensten: Encodable {
        struct Item: Encodable {
            var start: String
            var end: String
            var club: String
            @Nullable var team: String?
            var role: String
            var openSpots: Int
            @Nullable var location: String?
            enum CodingKeys: String, CodingKey {
                case start, end, club, team, role
                case openSpots = "open_spots"
                case location
            }
        }
        var count: Int
        var items: [Item]
    }

    public var sections: [SummarySection] {
        [
            SummarySection(
                name: "diensten", operation: KantineKoningDienstenOperation().name,
                arguments: ["past_days": .literal(.int(0)), "future_days": .literal(.int(Self.dienstDays))])
        ]
    }

    public var keySchemas: [String: JSONSchema] {
        [
            "next_dienst_start": .string(format: .dateTime, nullable: true),
            "next_dienst_club": .string(nullable: true),
            "diensten": .closedObject([
                "count": .integer, "items": .array(items: KantineKoningSchemas.summaryDienst.reference),
            ]),
        ]
    }

    public var keyComponents: [SchemaComponent] { [KantineKoningSchemas.summaryDienst] }

    public func summarize(_ input: SummaryInput) -> SummaryValues {
        let ahead = (input.decode([Dienst].self, "diensten") ?? [])
            .compactMap { dienst in LenientDate.parse(dienst.start).map { (dienst, $0) } }
            .filter { $0.1 > input.now }
            .sorted { $0.1 < $1.1 }
        let next = ahead.first
        let diensten = Diensten(
            count: ahead.count,
            items: ahead.prefix(10).map { dienst, _ in
                .init(
                    start: dienst.start, end: dienst.end, club: dienst.tenant, team: dienst.team?.name,
                    role: dienst.role, openSpots: dienst.openSpots, location: dienst.location)
            })
        return SummaryValues(
            values: [
                "next_dienst_start": next.map { .string($0.0.start) } ?? .null,
                "next_dienst_club": next.map { .string($0.0.tenant) } ?? .null,
                "diensten": (try? JSONValue(encoding: diensten)) ?? .null,
            ], changesAt: next?.1)
    }
}
