/// A field value that is a comma-separated list (RFC 9110 §5.6.1): its members with the optional
/// white space around them (spaces and tabs) taken off; empty members are kept (the callers
/// only look for members they know). Foundation's `trimmingCharacters(in:)` did this on every
/// request at a cost larger than the rest of the header handling.
enum HTTPFieldList {
    static func members(_ value: String) -> [Substring] {
        value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
    }

    /// `text` without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> Substring {
        func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }
}
