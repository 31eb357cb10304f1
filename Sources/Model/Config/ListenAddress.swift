/// `HOST:PORT` (IPv6 as `[::1]:8787`).
public struct ListenAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let defaultAddress = ListenAddress(host: "127.0.0.1", port: 8787)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(" "), let port = Int(portText), (0...65535).contains(port) else {
            return nil
        }
        self.host = String(host)
        self.port = port
    }

    /// True for addresses only this machine can reach.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = ListenAddress(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected HOST:PORT such as 127.0.0.1:8787")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
