import Foundation
import Model

/// Reads the human message out of an upstream error body, whatever its shape: `detail` as a
/// string, an object or an array of FastAPI validation errors; `error` as a string or an
/// object with `message`; a top-level `message`.
public enum UpstreamErrorMessage {
    public static func extract(from body: Data) -> String? {
        guard !body.isEmpty, let value = try? JSONValue(parsing: body) else { return nil }
        for key in ["detail", "error", "message"] {
            if let text = value[key].flatMap(message(in:)) {
                return BackendError.scrub(text)
            }
        }
        return nil
    }

    static func message(in value: JSONValue) -> String? {
        switch value {
        case .string(let text):
            return text
        case .array(let items):
            let parts = items.compactMap { item -> String? in
                guard let text = item["msg"]?.stringValue ?? item["message"]?.stringValue ?? item.stringValue else {
                    return nil
                }
                if let location = item["loc"]?.arrayValue {
                    let path = location.compactMap { $0.stringValue ?? ($0 == .null ? nil : "\($0)") }.joined(
                        separator: ".")
                    return path.isEmpty ? text : "\(path): \(text)"
                }
                return text
            }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        case .object(let object):
            return object["message"]?.stringValue ?? object["msg"]?.stringValue ?? object["detail"]?.stringValue
                ?? object["code"]?.stringValue
        default:
            return nil
        }
    }
}
