import Testing

@testable import Gateway

/// `ResponseFraming`: which answers go without their body, in request order, whoever writes them.
struct ResponseFramingTests {
    @Test func theAnswerToAHeadDropsItsBodyAndTheNextDoesNot() {
        var framing = ResponseFraming()
        framing.requestRead(isHead: true)
        framing.requestRead(isHead: false)
        framing.answerBegins()
        #expect(framing.droppingBody)
        framing.answerEnds()
        #expect(!framing.droppingBody)
        framing.answerBegins()
        #expect(!framing.droppingBody)
    }

    /// A hot `HEAD` written past the router takes its place in the queue: the router's next
    /// answer is framed for its own request.
    @Test func answersWrittenElsewhereTakeTheirTurn() {
        var framing = ResponseFraming()
        framing.requestRead(isHead: true)
        framing.answeredElsewhere()
        framing.requestRead(isHead: false)
        framing.answerBegins()
        #expect(!framing.droppingBody)

        var pipelined = ResponseFraming()
        for isHead in [false, true, true, false] { pipelined.requestRead(isHead: isHead) }
        var dropped: [Bool] = []
        pipelined.answeredElsewhere()
        for _ in 0..<3 {
            pipelined.answerBegins()
            dropped.append(pipelined.droppingBody)
            pipelined.answerEnds()
        }
        #expect(dropped == [true, true, false])
    }

    @Test func anAnswerWithoutARequestIsFramedAsIs() {
        var framing = ResponseFraming()
        framing.answerBegins()
        #expect(!framing.droppingBody)
    }
}
