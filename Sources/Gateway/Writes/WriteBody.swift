import Foundation
import Hummingbird
import Model

/// The JSON body of a write: at most 64 KB (also when it arrives without a Content-Length),
/// a JSON object, else a 400/413 that says so.
enum WriteBody {
    static func object(of request: Request) async throws -> (value: JSONValue, bytes: Data) {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Admission.maximumBodyBytes)
        } catch {
            throw GatewayError(
                .contentTooLarge, code: "body_too_large",
                message: "a request body is at most \(Admission.maximumBodyBytes / 1024) KB")
        }
        let data = Data(buffer.readableBytesView)
        guard let value = try? JSONCoding.decoder.decode(JSONValue.self, from: data), case .object = value else {
            throw GatewayError(.badRequest, code: "bad_request", message: "the body must be a JSON object")
        }
        return (value, data)
    }

    /// Decodes a typed body; a missing or mistyped field is a 400 naming it.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: Data) throws -> Value {
        do {
            return try JSONCoding.decoder.decode(Value.self, from: bytes)
        } catch let error as DecodingError {
            let (path, problem): ([any CodingKey], String) =
                switch error {
                case .keyNotFound(let key, let context): (context.codingPath + [key], "is required")
                case .typeMismatch(let type, let context):
                    (
                        context.codingPath,
                        "must be \(type == Double.self ? "a number" : type == String.self ? "a string" : "\(type)")"
                    )
                case .valueNotFound(_, let context): (context.codingPath, "must not be null")
                case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
                @unknown default: ([], "is not valid")
                }
            let name = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            throw GatewayError(
                .badRequest, code: "bad_request", message: "\(name.isEmpty ? "the body" : name) \(problem)")
        } catch {
            throw GatewayError(.badRequest, code: "bad_request", message: "the body is not valid")
        }
    }

    /// The only fields `value` may have; a typo is a 400, not silently ignored.
    static func check(_ value: JSONValue, allowed: Set<String>) throws {
        guard case .object(let object) = value else { return }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw GatewayError(
                .badRequest, code: "bad_request",
                message:
                    "unknown field \"\(String(unknown.prefix(40)))\" (fields: \(allowed.sorted().joined(separator: ", ")))"
            )
        }
    }
}
