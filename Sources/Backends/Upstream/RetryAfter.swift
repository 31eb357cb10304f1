import Foundation
import Model

/// Reads a `Retry-After` header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
public enum RetryAfter {
    public static func seconds(from value: String, now: Date = Date()) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 { return seconds }
        guard let seconds = Civil.parseHTTPDate(text) else { return nil }
        return max(0, TimeInterval(seconds) - now.timeIntervalSince1970)
    }
}
