import Backends
import Foundation
import Model
import Testing

/// The backends' parts of `/v1/summary` fit together: no two write the same key or name the
/// same section, and each writes all its keys even with no data.
@Suite("Summary parts")
struct SummaryPartTests {
    let input = SummaryInput(
        bodies: [:], date: LocalDate(year: 2026, month: 11, day: 24), zone: TimeZone(identifier: "Europe/Amsterdam")!,
        now: Date(timeIntervalSince1970: 1_795_000_000))

    @Test func sectionNamesAndKeysAreUniqueAcrossBackends() {
        let parts = BackendCatalog.summaryParts
        let sections = parts.flatMap(\.sections).map(\.name)
        #expect(Set(sections).count == sections.count, "\(sections)")
        let keys = parts.flatMap { $0.summarize(input).values.keys }
        #expect(Set(keys).count == keys.count, "\(keys)")
    }

    @Test func everySectionNamesARegisteredOperation() {
        for section in BackendCatalog.summaryParts.flatMap(\.sections) {
            #expect(OperationRegistry.standard[section.operation] != nil, "\(section.operation)")
        }
    }

    @Test func withoutDataEveryKeyIsPresentAndEmpty() {
        let values = BackendCatalog.summaryParts.map { $0.summarize(input) }
        let all = values.reduce(into: [String: JSONValue]()) { $0.merge($1.values) { a, _ in a } }
        #expect(all["tasks_planned"] == .null)
        #expect(all["next_dienst_start"] == .null)
        #expect(all["kcal_remaining"] == .null)
        #expect(all["diensten"]?["count"] == .number(0))
        #expect(values.allSatisfy { $0.changesAt == nil })
    }
}
