import Foundation
import Hummingbird
import Model

/// The JSON body of a write: at most 64 KB (also when it arrives without a Content-Length),
/// a JSON object, else a 400/413 that says so. A write that takes no fields may also come
/// without a body (read as `{}`).
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
        guard let value = try? JSONCoding.decoder.decode(JSONValue.self, from: data), case .object = value else {
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
