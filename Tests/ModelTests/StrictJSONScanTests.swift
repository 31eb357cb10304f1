import Foundation
import Model
import Testing

/// `StrictJSONScan`: duplicate keys at any depth and in any spelling, nesting bounds, syntax
/// problems with their place, and big texts.
@Suite("Strict JSON scan")
struct StrictJSONScanTests {
    func problem(_ text: String, depth: Int = StrictJSONScan.defaultMaximumDepth) -> StrictJSONScan.Problem? {
        StrictJSONScan.problem(in: Array(text.utf8), maximumDepth: depth)
    }

    @Test func validJSONHasNoProblem() {
        for text in [
            #"{}"#, #"[]"#, #" {"a":1,"b":[1,2,{"a":3}],"c":{"a":{"a":null}}} "#, #""text""#, "0", "-0.5e+3", "true",
            #"{"a":"\u00e9\"\\\/\b\f\n\r\t","b":"\ud83d\ude00"}"#, #"[{"a":1},{"a":2}]"#,
        ] {
            #expect(problem(text) == nil, "\(text)")
        }
    }

    @Test func aDuplicateKeyIsFoundAtAnyDepthWithItsPath() {
        #expect(problem(#"{"title":"a","title":"b"}"#) == .duplicateKey(key: "title", path: ""))
        #expect(problem(#"{"x":{"y":[0,{"b":1,"b":2}]}}"#) == .duplicateKey(key: "b", path: "x.y[1]"))
        #expect(problem(#"[{"a":1},{"a":1,"c":{},"a":2}]"#) == .duplicateKey(key: "a", path: "[1]"))
        let message = problem(#"{"x":{"y":[0,{"b":1,"b":2}]}}"#)?.description ?? ""
        #expect(message.contains(#""b""#) && message.contains("x.y[1]"), "\(message)")
    }

    @Test func keysAreComparedAfterTheirEscapes() {
        #expect(problem(#"{"a":1,"\u0061":2}"#) == .duplicateKey(key: "a", path: ""))
        #expect(problem(#"{"a/b":1,"a\/b":2}"#) == .duplicateKey(key: "a/b", path: ""))
        #expect(problem(#"{"😀":1,"\ud83d\ude00":2}"#) == .duplicateKey(key: "😀", path: ""))
        // Canonically equivalent spellings are one key to a decoded dictionary, so here too.
        #expect(problem("{\"caf\u{E9}\":1,\"cafe\\u0301\":2}") != nil)
        // Different keys stay different.
        #expect(problem(#"{"a":1,"A":2,"a ":3,"\u0062":4}"#) == nil)
    }

    @Test func aKeyWithControlCharactersIsShownEscaped() {
        let message = problem(#"{"a\u0007\u001b[31m":1,"a\u0007\u001b[31m":2}"#)?.description ?? ""
        #expect(message.contains(#"a\u0007\u001b[31m"#), "\(message)")
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(problem(deep) == .tooDeep(limit: 64))
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(problem(fine) == nil)
        // A million opening brackets: stopped at the bound, no recursion.
        #expect(problem(String(repeating: "{\"a\":", count: 1_000_000)) == .tooDeep(limit: 64))
    }

    @Test func syntaxProblemsSayWhatAndWhere() {
        let control = problem("{\"title\":\"a\u{7}b\"}")
        guard case .syntax(let message, let line, let column)? = control else {
            Issue.record("\(String(describing: control))")
            return
        }
        #expect(message.contains("U+0007") && line == 1 && column == 12, "\(message) \(line):\(column)")
        for text in [
            "", "{", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "[1 2]", "01", "1.", "tru", #""\x41""#, "{} {}", "{a:1}",
            #""\u12""#,
        ] {
            guard case .syntax? = problem(text) else {
                Issue.record("\(text): \(String(describing: problem(text)))")
                continue
            }
        }
        guard case .syntax(_, let line2, _)? = problem("{\n\"a\": 1,\n\"b\" 2}") else {
            Issue.record("no syntax problem")
            return
        }
        #expect(line2 == 3)
    }

    /// 64 KB bodies (the write limit): thousands of keys, a duplicate at the very end found;
    /// many objects each with the same keys are fine.
    @Test func bigTextsAreScannedWhole() {
        var object = (0..<5000).map { "\"key\($0)\":\($0)" }.joined(separator: ",")
        #expect(problem("{" + object + "}") == nil)
        object += ",\"key17\":0"
        #expect(problem("{" + object + "}") == .duplicateKey(key: "key17", path: ""))
        let many = "[" + Array(repeating: #"{"a":1,"b":2,"c":[1,2,3]}"#, count: 2500).joined(separator: ",") + "]"
        #expect(many.utf8.count > 60_000)
        #expect(problem(many) == nil)
    }
}
