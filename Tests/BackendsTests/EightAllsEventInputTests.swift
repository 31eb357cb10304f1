import Backends
import Model
import Testing

/// The event body daygate sends 8alls, checked as 8alls checks it.
struct EightAllsEventInputTests {
    /// pydantic counts `max_length` in code points: 200 flag emoji are 200 characters for
    /// Swift but 400 for 8alls, which answered 422 (recorded: 077). daygate refuses it itself.
    @Test func aTitleIsCountedAsEightAllsCountsIt() throws {
        let flags = String(repeating: "🇳🇱", count: 200)
        #expect(flags.count == 200 && flags.unicodeScalars.count == 400)
        #expect(throws: WriteRefusal.self) {
            _ = try EventInput(json: .object(["title": .string(flags)]))
        }
        let fits = String(repeating: "🇳🇱", count: 127)
        #expect(try EventInput(json: .object(["title": .string(fits)])).title == fits)
    }
}
