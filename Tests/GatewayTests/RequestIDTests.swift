import Testing

@testable import Gateway

/// Request ids the gateway makes when a client sends none (or an unusable one).
struct RequestIDTests {
    @Test func newIDsAreWellFormedAndDoNotRepeat() {
        var seen = Set<String>()
        for _ in 0..<50_000 {
            let id = RequestIDMiddleware.newID()
            #expect(id.count == 13)
            #expect(Array(id)[8] == "-")
            #expect(id.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isUppercase })
            #expect(RequestIDMiddleware.isSane(id))
            seen.insert(id)
        }
        #expect(seen.count == 50_000)
    }

    @Test func onlySaneClientIDsAreKept() {
        #expect(RequestIDMiddleware.isSane("trace-me_42"))
        #expect(!RequestIDMiddleware.isSane(""))
        #expect(!RequestIDMiddleware.isSane("a b"))
        #expect(!RequestIDMiddleware.isSane("x\r\nSet-Cookie: y"))
        #expect(!RequestIDMiddleware.isSane(String(repeating: "a", count: 65)))
    }
}
