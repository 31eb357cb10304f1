import Foundation

/// What a write with an `Idempotency-Key` does, as a pure decision: before the write, from what
/// the store holds for the key; after it, from how the write ended. `IdempotencyGuard` performs
/// the decisions against SQLite and the backend.
///
/// The record is made *before* the write is sent (reserve, then send, then record the answer),
/// so no crash, full disk or locked database can make a key write twice: a write whose
/// reservation cannot be stored is not sent; a reservation that stays without an answer (the
/// gateway stopped while the write was on its way, or the backend never answered) answers every
/// retry with "outcome unknown" instead of sending again.
enum IdempotencyPolicy {
    /// What the store holds for a key.
    enum Stored: Equatable {
        case nothing
        /// Reserved and not answered (yet): `running` when this process sends it right now.
        case reserved(requestHash: String, running: Bool)
        case answered(requestHash: String)
    }

    enum Before: Equatable {
        /// Reserve the key, then send the write.
        case reserve
        /// Give the recorded answer again (`Idempotent-Replayed: true`).
        case replay
        /// 422: the key was used for another request.
        case keyReused
        /// 409: the first request with this key is still running.
        case inFlight
        /// 409: a write with this key was sent and its outcome never recorded — it may or may
        /// not have happened; sending it again could do it twice.
        case outcomeUnknown
    }

    static func before(_ stored: Stored, requestHash: String) -> Before {
        switch stored {
        case .nothing:
            return .reserve
        case .answered(let hash):
            return hash == requestHash ? .replay : .keyReused
        case .reserved(let hash, let running):
            guard hash == requestHash else { return .keyReused }
            return running ? .inFlight : .outcomeUnknown
        }
    }

    /// How a sent write ended.
    enum Outcome: Equatable {
        /// The backend did it (2xx).
        case done
        /// The backend refused it for good (4xx other than 429): it did nothing, and would refuse
        /// the same request again.
        case refused
        /// Nothing was done, and a retry may succeed: a 429, an open circuit or a connection that
        /// could not be made.
        case notDone
        /// No answer, or a 5xx: a timeout, a connection lost after the write was sent, an error
        /// answered after the write was stored (a proxy's 502/504, an app failing after its
        /// insert). It may have happened.
        case unknown
    }

    enum After: Equatable {
        /// Keep the answer for the key's retries.
        case record
        /// Free the key: a retry with it sends the write again.
        case release
        /// Leave the reservation: retries are told the outcome is unknown.
        case keepReservation
    }

    static func after(_ outcome: Outcome) -> After {
        switch outcome {
        case .done, .refused: .record
        case .notDone: .release
        case .unknown: .keepReservation
        }
    }
}
