/// Control characters in the text of a write: every backend takes them inside JSON strings,
/// but in a title, a name or a tag they are never meant (a pasted escape sequence, a NUL, a
/// bare CR) and would reach dashboards, calendar feeds and the backends' own apps. Single-line
/// fields refuse them all; multi-line ones (a description, notes) take line feeds and tabs.
/// The refusal names the field and the character, so the client sees what to fix.
extension WriteRefusal {
    /// Line feed and tab: what a multi-line field takes.
    public static let multiLine: Set<Unicode.Scalar> = ["\n", "\t"]

    /// A 400 naming `field` and the first control character of `value` (other than
    /// `allowing`), nil when it has none.
    public static func controlCharacter(in value: String, field: String, allowing: Set<Unicode.Scalar> = [])
        -> WriteRefusal?
    {
        var position = 0
        for scalar in value.unicodeScalars {
            position += 1
            guard scalar.properties.generalCategory == .control, !allowing.contains(scalar) else { continue }
            let code = String(scalar.value, radix: 16, uppercase: true)
            let allowed = allowing.isEmpty ? "" : " other than line breaks and tabs"
            return .badInput(
                "\(field) must not contain control characters\(allowed) (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code) at character \(position))"
            )
        }
        return nil
    }
}
