import Cache
import Foundation
import Model
import Testing

/// Cache keys are typed, but the string each entry is stored under stays what it was before
/// they were: rows written by earlier versions are still found.
@Suite("Cache keys")
struct CacheKeyTests {
    static let day = LocalDate(year: 2026, month: 11, day: 22)

    /// Storage keys written literally, as the string-keyed `CacheKey` made them.
    @Test func storageKeysAreUnchanged() {
        #expect(
            CacheKey(
                profile: "default", operation: "eightalls.events",
                arguments: ["from": .date(Self.day), "to": .date(Self.day)], credentialFingerprint: "none"
            ).storageKey == "default|eightalls.events|from=2026-11-22&to=2026-11-22|none")
        #expect(
            CacheKey(
                profile: "anna", operation: "prsnl.search",
                arguments: ["q": .string("a b|c&d=e/f"), "limit": .int(20), "cursor": .string("")],
                credentialFingerprint: "sha256:ab12"
            ).storageKey == "anna|prsnl.search|limit=20&q=a%20b%7Cc&d=e%2Ff|sha256:ab12")
        #expect(
            CacheKey(
                profile: "zoë|x", operation: "tickedify.list",
                arguments: ["list": .string("inbox"), "all": .bool(true)], credentialFingerprint: "fp%1"
            ).storageKey == "zo%C3%AB%7Cx|tickedify.list|all=true&list=inbox|fp%1")
        #expect(
            CacheKey(profile: "default", operation: "tickedify.counts", arguments: [:], credentialFingerprint: "none")
                .storageKey == "default|tickedify.counts||none")
    }

    @Test func argumentsStayTyped() {
        let key = CacheKey(
            profile: "default", operation: "fitiq.nutrition",
            arguments: ["date": .date(Self.day), "limit": .int(5), "note": .string("")], credentialFingerprint: "none")
        #expect(key.arguments == ["date": .date(Self.day), "limit": .int(5)], "empty strings are left out")
        #expect(key.arguments["date"]?.date == Self.day)
        #expect(key.belongs(toProfile: "default", operation: "fitiq.nutrition"))
        #expect(!key.belongs(toProfile: "default", operation: "fitiq.food_logs"))
        #expect(!key.belongs(toProfile: "anna", operation: "fitiq.nutrition"))
        #expect(key.description == key.storageKey)
    }

    @Test func argumentValuesReadBackTheirCanonicalText() {
        let values: [ArgumentValue] = [
            .date(Self.day), .int(-3), .string("a|b"), .string(""), .bool(true), .bool(false),
        ]
        for value in values {
            #expect(ArgumentValue(kind: value.kind, text: value.description) == value)
        }
        #expect(ArgumentValue(kind: .date, text: "2026-02-30") == nil)
        #expect(ArgumentValue(kind: .int, text: "2026-11-22") == nil)
        #expect(ArgumentValue(kind: .bool, text: "yes") == nil)
    }
}
