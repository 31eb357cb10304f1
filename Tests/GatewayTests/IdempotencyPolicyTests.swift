import Backends
import Model
import Testing

@testable import Gateway

/// `IdempotencyPolicy` and how a write's failure is read (`WriteFailed.outcome`): no path sends
/// a keyed write twice, and only a write that surely did nothing frees its key.
struct IdempotencyPolicyTests {
    @Test func beforeTheWrite() {
        #expect(IdempotencyPolicy.before(.nothing, requestHash: "a") == .reserve)
        #expect(IdempotencyPolicy.before(.answered(requestHash: "a"), requestHash: "a") == .replay)
        #expect(IdempotencyPolicy.before(.answered(requestHash: "a"), requestHash: "b") == .keyReused)
        #expect(IdempotencyPolicy.before(.reserved(requestHash: "a", running: true), requestHash: "a") == .inFlight)
        #expect(
            IdempotencyPolicy.before(.reserved(requestHash: "a", running: false), requestHash: "a") == .outcomeUnknown)
        #expect(IdempotencyPolicy.before(.reserved(requestHash: "a", running: false), requestHash: "b") == .keyReused)
    }

    @Test func afterTheWrite() {
        #expect(IdempotencyPolicy.after(.done) == .record)
        #expect(IdempotencyPolicy.after(.refused) == .record)
        #expect(IdempotencyPolicy.after(.notDone) == .release)
        #expect(IdempotencyPolicy.after(.unknown) == .keepReservation)
    }

    @Test func aFailureSaysWhetherTheWriteMayHaveHappened() {
        func outcome(_ kind: BackendError.Kind, mayHaveArrived: Bool? = nil) -> IdempotencyPolicy.Outcome {
            WriteFailed(BackendError(kind, backend: "b", message: "m", mayHaveArrived: mayHaveArrived)).outcome
        }
        #expect(outcome(.rejected) == .refused)
        #expect(outcome(.rateLimited) == .notDone)
        #expect(outcome(.circuitOpen) == .notDone)
        #expect(outcome(.status) == .unknown, "a 5xx may come after the write was stored")
        #expect(outcome(.status, mayHaveArrived: false) == .notDone)
        #expect(outcome(.reauthRequired) == .notDone)
        #expect(outcome(.timeout) == .unknown)
        #expect(outcome(.badResponse) == .unknown)
        #expect(outcome(.unreachable) == .unknown, "a connection lost after sending")
        #expect(outcome(.unreachable, mayHaveArrived: false) == .notDone, "a connection refused")
        #expect(WriteFailed(ErrorDetail(code: "bad_parameter", message: "m")).outcome == .refused)
        struct Unexpected: Error {}
        #expect(WriteFailed(Unexpected()).outcome == .unknown)
    }
}
