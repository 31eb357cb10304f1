/// TEXT values (RFC 5545 §3.3.11): backslash escapes and comma-separated lists.
public enum ICSText {
    /// `\n`/`\N` → newline, `\,` `\;` `\\` → the character; an unknown escape keeps the character.
    public static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        result.reserveCapacity(text.count)
        var escaping = false
        for character in text {
            if escaping {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result.append("\\") }
        return result
    }

    /// Splits a list value on commas that are not escaped (`a\,b,c` → `a\,b`, `c`).
    public static func splitList(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaping = false
        for character in text {
            if escaping {
                current.append(character)
                escaping = false
            } else if character == "\\" {
                current.append(character)
                escaping = true
            } else if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }
}
