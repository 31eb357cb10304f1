import Foundation
import Model

/// What a write gets from its HTTP request: the path parameters (percent-decoded, 1–200
/// characters), the query parameters it declares (`BackendWrite.queryNames`; any other is a
/// 400 before the write sees the request) and the JSON object body with its bytes.
public struct WriteRequest: Sendable {
    public var parameters: [String: String]
    public var query: [String: String]
    public var body: JSONValue
    public var bytes: Data

    public init(
        parameters: [String: String] = [:], query: [String: String] = [:], body: JSONValue = .object([:]),
        bytes: Data = Data("{}".utf8)
    ) {
        self.parameters = parameters
        self.query = query
        self.body = body
        self.bytes = bytes
    }

    /// A path parameter the route declares.
    public func parameter(_ name: String) throws(WriteRefusal) -> String {
        guard let value = parameters[name] else { throw .badInput("\(name) is required") }
        return value
    }

    /// A required string field.
    public func string(_ field: String) throws(WriteRefusal) -> String {
        guard let value = body[field]?.stringValue else { throw .badInput("\(field) is required (a string)") }
        return value
    }

    /// The body as `Value`; a missing or mistyped field is a 400 that names it.
    public func decode<Value: Decodable>(_ type: Value.Type) throws(WriteRefusal) -> Value {
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
            throw .badInput("\(name.isEmpty ? "the body" : name) \(problem)")
        } catch {
            throw .badInput("the body is not valid")
        }
    }
}
