import Foundation
import Model

/// A write the gateway refuses itself, before or instead of calling the backend: a rule of the
/// backend's app (managers only, future diensten only, no duplicate names) or something that
/// does not exist. Carries the HTTP status the client gets.
public struct WriteRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var detail: ErrorDetail { ErrorDetail(code: code, message: message) }

    public static func badInput(_ message: String) -> WriteRefusal {
        WriteRefusal(status: 400, code: "bad_request", message: message)
    }

    public static func forbidden(_ message: String) -> WriteRefusal {
        WriteRefusal(status: 403, code: "forbidden", message: message)
    }

    public static func notFound(_ message: String) -> WriteRefusal {
        WriteRefusal(status: 404, code: "not_found", message: message)
    }

    public static func conflict(_ message: String) -> WriteRefusal {
        WriteRefusal(status: 409, code: "conflict", message: message)
    }
}
