/// A `Host` header read strictly (RFC 9110 §7.2, RFC 3986 §3.2.2): a bracketed IPv6 literal, an
/// IPv4 address or a DNS name, then at most `:port`. Anything else — `[::1].evil.com`,
/// `localhost:80@evil.com`, a second colon, a space — is not a host at all, so it cannot be
/// mistaken for this machine.
public struct HostHeader: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case ipv4
        case ipv6
        case name
    }

    /// Lowercased, without brackets or port, and without the one trailing dot a fully
    /// qualified name may carry (`localhost.`).
    public var name: String
    public var kind: Kind

    /// nil when `text` is not a well-formed `Host`.
    public init?(_ text: String) {
        var rest = Substring(text.lowercased())
        guard !rest.isEmpty, rest.utf8.count <= 255 else { return nil }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let literal = rest[rest.index(after: rest.startIndex)..<close]
            guard Self.isIPv6(literal) else { return nil }
            name = String(literal)
            kind = .ipv6
            rest = rest[rest.index(after: close)...]
            guard Self.isPortSuffix(rest) else { return nil }
            return
        }
        if let colon = rest.firstIndex(of: ":") {
            guard Self.isPortSuffix(rest[colon...]) else { return nil }
            rest = rest[..<colon]
        }
        if rest.hasSuffix(".") { rest = rest.dropLast() }
        guard !rest.isEmpty else { return nil }
        if Self.isIPv4(rest) {
            kind = .ipv4
        } else {
            guard Self.isDNSName(rest) else { return nil }
            kind = .name
        }
        name = String(rest)
    }

    /// Nothing, or `:` and one to five digits.
    private static func isPortSuffix(_ text: Substring) -> Bool {
        if text.isEmpty { return true }
        guard text.first == ":" else { return false }
        let digits = text.dropFirst()
        return !digits.isEmpty && digits.count <= 5 && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && Int(digits).map { $0 <= 65535 } == true
    }

    static func isIPv4(_ text: Substring) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy { $0.isASCII && $0.isNumber }
                    && Int(octet).map { $0 <= 255 } == true
            }
    }

    private static func isIPv6(_ text: Substring) -> Bool {
        guard text.count >= 2, text.count <= 45, text.contains(":") else { return false }
        return text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    /// Letters, digits and hyphens in dot-separated labels of at most 63 characters (an
    /// underscore is let through: some home networks name machines so).
    private static func isDNSName(_ text: Substring) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }
        }
    }

    /// This machine's own loopback: `localhost` and `*.localhost` (RFC 6761), 127.0.0.0/8, ::1.
    public var isLoopback: Bool {
        switch kind {
        case .name: name == "localhost" || name.hasSuffix(".localhost")
        case .ipv4: name.hasPrefix("127.")
        case .ipv6: name == "::1" || name == "0:0:0:0:0:0:0:1"
        }
    }
}
