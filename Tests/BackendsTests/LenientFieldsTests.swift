import Foundation
import Model
import Testing

@testable import Backends

/// Upstream keys are matched whatever their spelling; the fold is byte-wise for ASCII and must
/// agree with the plain Foundation reading on every key, ASCII or not.
@Suite("Lenient fields")
struct LenientFieldsTests {
    static let keys = [
        "start_time", "startTime", "Start-Time", "START_TIME", "starttime", "", "_", "--", "a_b-c_D",
        "Überschrift", "straße_Name", "ÄBC-def", "naïve_Key", "emoji_🎉_Key", "İstanbul", "x\u{301}_y",
    ]

    @Test(arguments: keys)
    func foldAgreesWithFoundation(key: String) {
        let reference = key.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
        #expect(LenientFields.fold(key) == reference)
    }

    @Test func snakeAndCamelCaseFindTheSameField() throws {
        let object = JSONValue.object(["Start-Time": .string("09:00"), "is_done": .bool(true)])
        let fields = try #require(LenientFields(object))
        #expect(fields.string("start_time") == "09:00")
        #expect(fields.string("startTime") == "09:00")
        #expect(fields.bool("isDone") == true)
    }
}
