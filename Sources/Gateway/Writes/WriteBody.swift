import Foundation
import Hummingbird
import Model

/// The JSON body of a write: at most 64 KB (also when it arrives without a Content-Length),
/// a JSON object, else a 400/413 that says so. A write that takes no fields may also come
/// without a body (read as `{}`).
///
/// Every key appears once per object, at any depth (`StrictJSONScan`): the decoder would keep
/// one of two values silently, and a body that means one thing to the gateway's checks and
/// another to whatever reads it next is refused rather than guessed. Text that is not JSON
/// gets a 400 that says what is wrong and where (a raw control character in a string, say).
enum WriteBody {
    static func object(of request: Request, emptyAllowed: Bool = false) async throws -> (value: JSONValue, bytes: Data)
    {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Admission.maximumBodyBytes)
        } catch {
            throw GatewayError(
                .contentTooLarge, code: "body_too_large",
                message: "a request body is at most \(Admission.maximumBodyBytes / 1024) KB")
        }
        var data = Data(buffer.readableBytesView)
        if emptyAllowed, data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { data = Data("{}".utf8) }
        let problem = StrictJSONScan.problem(in: data)
        guard let value = try? JSONValue(parsing: data) else {
            throw GatewayError(
                .badRequest, code: "bad_request",
                message: problem.map { "\($0); the body must be a JSON object" } ?? "the body must be a JSON object")
        }
        switch problem {
        case .duplicateKey, .tooDeep:
            throw GatewayError(.badRequest, code: "bad_request", message: problem?.description ?? "")
        case .syntax, nil:
            // What the decoder took is JSON enough (the scan is the stricter of the two).
            break
        }
        guard case .object = value else {
            throw GatewayError(.badRequest, code: "bad_request", message: "the body must be a JSON object")
        }
        return (value, data)
    }

    /// The only fields `value` may have; a typo is a 400, not silently ignored.
    static func check(_ value: JSONValue, allowed: Set<String>) throws {
        guard case .object(let object) = value else { return }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw GatewayError(
                .badRequest, code: "bad_request",
                message: "unknown field \"\(String(unknown.prefix(40)))\" "
                    + (allowed.isEmpty
                        ? "(this write takes no fields)" : "(fields: \(allowed.sorted().joined(separator: ", ")))")
            )
        }
    }
}
