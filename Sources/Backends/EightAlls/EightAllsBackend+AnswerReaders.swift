import Foundation
import Model

extension EightAllsBackend {
    /// Every 8alls answer the gateway reads: the event list, one event (the lookup before a
    /// change, and the answer to a create or an update), a hint on `/ws`, a refusal.
    public var answerReaders: [BackendAnswerReader] {
        let day = BackendAnswerReader.referenceDay
        return [
            BackendAnswerReader("eightalls.events") { body, zone in
                let window = DateInterval(start: day.start(in: zone), end: day.adding(days: 7).start(in: zone))
                let events = try EightAllsClient.decodeEvents(Data(body))
                let output = try OperationOutput(
                    encoding: EightAllsEventsOperation.unified(events, window: window, zone: zone))
                BackendAnswerReader.cached(output, of: EightAllsEventsOperation().name, by: self, zone: zone)
            },
            BackendAnswerReader("eightalls.event") { body, zone in
                let event = try EightAllsClient.decodeEvent(Data(body))
                _ = EightAllsEventWrite.invalidation(touching: [event.span], zone: zone)
                _ = try JSONCoding.encode(event.unified(in: zone))
            },
            BackendAnswerReader("eightalls.hint") { body, _ in
                _ = EightAllsHintListener.hintType(String(decoding: body, as: UTF8.self))
            },
            .upstreamError("eightalls"),
        ]
    }
}
