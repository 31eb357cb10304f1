import Foundation
import Model
import Testing

/// The quick answer percent-encoding asks first must agree with Foundation's on every byte.
@Suite("ASCII byte sets")
struct ASCIIByteSetTests {
    @Test func holdsLettersDigitsAndTheOthersOnly() {
        let set = ASCIIByteSet(lettersDigitsAnd: "-._~")
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(set.contains(byte) == allowed.contains(byte), "byte \(byte)")
        }
    }

    /// Every text, ASCII or not, is "all allowed" exactly when Foundation's percent-encoding
    /// with the same characters leaves it as it is.
    @Test(arguments: ["", "2026-11-29", "a b", "a+b", "Anna_list~1.x", "zoë", "%41", "tab\there", "é", "日本", "A|B"])
    func agreesWithFoundation(text: String) {
        var characters = CharacterSet()
        characters.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let set = ASCIIByteSet(lettersDigitsAnd: "-._~")
        #expect(set.containsAll(of: text) == (text.addingPercentEncoding(withAllowedCharacters: characters) == text))
    }
}
