import Foundation
import Model
import Testing

@testable import Backends

/// The pure parts of the meal calls: one food decoder and its answer, the search's and the
/// barcode's argument checks, and the delete's id check.
@Suite("FitIQ foods")
struct FitIQFoodsTests {
    static let clock = RequestClock(now: Date(timeIntervalSince1970: 1_795_000_000), timeZone: .gmt)

    @Test func aFoodIsReadOnceAndAnsweredPerServing() throws {
        let value = try JSONCoding.decoder.decode(
            JSONValue.self,
            from: Data(
                #"{"id":"ABC","name":"Stroopwafel","brand":"Daelmans","barcode":"8710000123456","calories":140,"protein_g":1,"carbs_g":20.04,"fat_g":6,"serving_size":1,"serving_unit":"piece"}"#
                    .utf8))
        let food = try #require(FitIQDayNutrition.Food(value))
        #expect(food.calories == 140 && food.carbsG == 20.04)
        #expect(food.id == "abc")
        let answer = food.answer()
        #expect(answer["source"] == .string("database"))
        #expect(answer["carbs_g"]?.numberValue == 20)
        #expect(answer["serving_unit"] == .string("piece"))
        #expect(answer["brand"] == .string("Daelmans"))
        #expect(food.answer(foundByBarcode: true)["source"] == .string("barcode"))

        let custom = try JSONCoding.decoder.decode(
            JSONValue.self,
            from: Data(
                #"{"data":{"id":"d1","user_id":"u1","name":"Soup","calories":80,"protein_g":2,"carbs_g":9,"fat_g":1}}"#
                    .utf8))
        let own = try #require(FitIQDayNutrition.Food(custom["data"] ?? .null))
        #expect(own.answer()["source"] == .string("custom"))
        #expect(own.answer()["brand"] == .null)
    }

    @Test func searchArguments() throws {
        let search = FitIQFoodSearchOperation()
        #expect(
            try search.normalise(["q": .string("  appel ")], clock: Self.clock) == [
                "q": .string("appel"), "limit": .int(10),
            ])
        #expect(throws: ErrorDetail.self) { try search.normalise(["q": .string("   ")], clock: Self.clock) }
        #expect(throws: ErrorDetail.self) {
            try search.normalise(["q": .string(String(repeating: "a", count: 101))], clock: Self.clock)
        }
        #expect(throws: ErrorDetail.self) {
            try search.normalise(["q": .string("a"), "limit": .int(101)], clock: Self.clock)
        }
    }

    @Test func barcodesAre8To14Digits() {
        for code in ["12345678", "8710000123456", "12345678901234"] {
            #expect(FitIQFoodBarcodeOperation.isBarcode(code), "\(code)")
        }
        for code in ["1234567", "123456789012345", "1234567a", "１２３４５６７８", "1234 5678", ""] {
            #expect(!FitIQFoodBarcodeOperation.isBarcode(code), "\(code)")
        }
    }

    @Test func deletingWantsAUUID() throws {
        let write = FitIQDeleteFoodLogWrite()
        #expect(throws: WriteRefusal.self) { try write.check(WriteRequest(parameters: ["id": "not-a-uuid"])) }
        try write.check(WriteRequest(parameters: ["id": "6F9619FF-8B86-D011-B42D-00C04FC964FF"]))
        #expect(
            try FitIQDeleteFoodLogWrite.id(WriteRequest(parameters: ["id": "6F9619FF-8B86-D011-B42D-00C04FC964FF"]))
                == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
    }

    @Test func aFoodLogCarriesItsFoodsNameAndCalories() throws {
        let row: JSONValue = .object([
            "id": .string("l1"), "food_id": .string("abc"), "meal_type": .string("lunch"), "servings": .number(1.5),
            "logged_at": .string("2026-11-23T11:00:00Z"),
        ])
        let food = FitIQDayNutrition.Food(calories: 95, proteinG: 0.5, carbsG: 25, fatG: 0.3, name: "Apple")
        let log = try #require(FitIQRecord.foodLog(row, zone: .gmt, food: food))
        #expect(log["name"] == .string("Apple"))
        #expect(log["calories"]?.numberValue == 143)
        let unknown = try #require(FitIQRecord.foodLog(row, zone: .gmt))
        #expect(unknown["name"] == .null && unknown["calories"] == .null)
    }
}
