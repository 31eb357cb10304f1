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
        "Überschrift", "straße_Name", "ÄBC-def", "naïve_Key", "emoji_🎉_Key", "İstanbul", "istanbul", "x\u{301}_y",
        "\u{212A}ey", "key", "KEY_", "ke",
    ]

    @Test(arguments: keys)
    func foldAgreesWithFoundation(key: String) {
        let reference = key.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
        #expect(LenientFields.fold(key) == reference)
    }

    /// The allocation-free comparison says what comparing the folds would, for every pair.
    @Test func foldedComparisonAgreesWithTheFolds() {
        for a in Self.keys {
            for b in Self.keys {
                #expect(
                    LenientFields.foldedEqual(a, b) == (LenientFields.fold(a) == LenientFields.fold(b)), "\(a) \(b)")
            }
        }
    }

    /// A lookup skips a field whose hash differs, so keys that fold alike must hash alike
    /// (or be compared anyway, as text outside ASCII is); and every pair is found through a
    /// lookup exactly when the folds agree.
    @Test func keysThatFoldAlikeHashAlikeAndAreFound() {
        for a in Self.keys {
            for b in Self.keys where LenientFields.foldedEqual(a, b) {
                let (x, y) = (LenientFields.foldHash(a), LenientFields.foldHash(b))
                #expect(x == y || x == LenientFields.notASCII || y == LenientFields.notASCII, "\(a) \(b)")
            }
            for b in Self.keys {
                let fields = LenientFields(.object(JSONObject(fields: [(a, .string("found"))])))
                #expect(
                    (fields?.string(b) == "found") == (LenientFields.fold(a) == LenientFields.fold(b)), "\(a) \(b)")
            }
        }
    }

    @Test func aKeyGivenTwiceReadsAsItsLastField() throws {
        let object = JSONValue.object(
            JSONObject(fields: [("start_time", .string("first")), ("startTime", .string("last"))]))
        #expect(LenientFields(object)?.string("START-TIME") == "last")
    }

    @Test func snakeAndCamelCaseFindTheSameField() throws {
        let object = JSONValue.object(["Start-Time": .string("09:00"), "is_done": .bool(true)])
        let fields = try #require(LenientFields(object))
        #expect(fields.string("start_time") == "09:00")
        #expect(fields.string("startTime") == "09:00")
        #expect(fields.bool("isDone") == true)
    }
}
