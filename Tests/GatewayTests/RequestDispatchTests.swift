import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Testing

@testable import Gateway

/// The decisions of a connection's dispatcher (`RequestDispatch`), without a channel.
@Suite struct RequestDispatchTests {
    static func head(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: path)
    }

    static let part = ByteBuffer(string: "part")

    @Test func aRequestIsStartedItsBodyGivenAndTheConnectionParkedAfterItsAnswer() {
        var dispatch = RequestDispatch()
        #expect(dispatch.reads)
        #expect(dispatch.read(.head(Self.head("/a"))) == [.start(Self.head("/a"))])
        #expect(dispatch.read(.body(Self.part)) == [.yield(Self.part)])
        #expect(dispatch.read(.end(nil)) == [.finishBody])
        #expect(dispatch.state == .answering(bodyEnded: true))
        #expect(dispatch.answered(goesOn: true).isEmpty)
        #expect(dispatch.state == .parked)
        #expect(dispatch.reads)
    }

    @Test func pipelinedRequestsWaitForTheAnswerBeforeThemAndStartOneAtATime() {
        var dispatch = RequestDispatch()
        _ = dispatch.read(.head(Self.head("/a")))
        _ = dispatch.read(.end(nil))
        for part in [
            HTTPRequestPart.head(Self.head("/b")), .body(Self.part), .end(nil), .head(Self.head("/c")), .end(nil),
        ] {
            #expect(dispatch.read(part).isEmpty, "a pipelined part was acted on before the answer before it")
        }
        #expect(dispatch.answered(goesOn: true) == [.start(Self.head("/b")), .yield(Self.part), .finishBody])
        #expect(dispatch.queued.count == 2)
        #expect(dispatch.answered(goesOn: true) == [.start(Self.head("/c")), .finishBody])
        #expect(dispatch.answered(goesOn: true).isEmpty)
        #expect(dispatch.state == .parked)
    }

    @Test func readingPausesWhenTheBodysReaderIsBehindOrTooMuchIsReadAhead() {
        var dispatch = RequestDispatch()
        _ = dispatch.read(.head(Self.head("/upload")))
        dispatch.bodyDemand(false)
        #expect(!dispatch.reads)
        dispatch.bodyDemand(true)
        #expect(dispatch.reads)
        _ = dispatch.read(.end(nil))
        for index in 0..<RequestDispatch.readAhead {
            #expect(dispatch.reads)
            _ = dispatch.read(index.isMultiple(of: 2) ? .head(Self.head("/next")) : .end(nil))
        }
        #expect(!dispatch.reads, "reading went on past the read-ahead while a request was answered")
        _ = dispatch.answered(goesOn: true)
        #expect(dispatch.reads)
    }

    @Test func aBodyLeftByItsHandlerIsDroppedToItsEnd() {
        var dispatch = RequestDispatch()
        _ = dispatch.read(.head(Self.head("/a")))
        dispatch.bodyDemand(false)
        #expect(dispatch.answered(goesOn: true) == [.finishBody])
        #expect(dispatch.state == .skipping)
        #expect(dispatch.reads)
        #expect(dispatch.read(.body(Self.part)).isEmpty)
        #expect(dispatch.read(.end(nil)).isEmpty)
        #expect(dispatch.state == .parked)
        #expect(dispatch.read(.head(Self.head("/b"))) == [.start(Self.head("/b"))])
    }

    @Test func aRequestThatAsksToCloseEndsTheConnectionAndWhatWasQueued() {
        var dispatch = RequestDispatch()
        _ = dispatch.read(.head(Self.head("/a")))
        _ = dispatch.read(.end(nil))
        _ = dispatch.read(.head(Self.head("/b")))
        #expect(dispatch.answered(goesOn: false) == [.close])
        #expect(dispatch.queued.isEmpty)
        #expect(dispatch.read(.end(nil)).isEmpty)
        #expect(!dispatch.reads)
    }

    @Test func partsWhereTheyCannotComeCloseTheConnection() {
        var parked = RequestDispatch()
        #expect(parked.read(.body(Self.part)) == [.close])
        var inBody = RequestDispatch()
        _ = inBody.read(.head(Self.head("/a")))
        #expect(inBody.read(.head(Self.head("/b"))) == [.close])
        #expect(inBody.failed().isEmpty, "a closed connection was closed twice")
    }

    @Test func aClientThatFinishedSendingIsAnsweredWhatItSentThenClosed() {
        var idle = RequestDispatch()
        #expect(idle.inputClosed() == [.close])
        var answering = RequestDispatch()
        _ = answering.read(.head(Self.head("/a")))
        _ = answering.read(.end(nil))
        _ = answering.read(.head(Self.head("/b")))
        _ = answering.read(.end(nil))
        #expect(answering.inputClosed().isEmpty)
        #expect(answering.answered(goesOn: true) == [.start(Self.head("/b")), .finishBody])
        #expect(answering.answered(goesOn: true) == [.close])
        var midBody = RequestDispatch()
        _ = midBody.read(.head(Self.head("/upload")))
        #expect(midBody.inputClosed() == [.close])
    }

    @Test func anEndedConnectionStartsNothingMore() {
        var dispatch = RequestDispatch()
        _ = dispatch.read(.head(Self.head("/a")))
        dispatch.ended()
        #expect(dispatch.answered(goesOn: true).isEmpty)
        #expect(dispatch.read(.head(Self.head("/b"))).isEmpty)
    }
}
