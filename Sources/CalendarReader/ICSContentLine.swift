/// One unfolded content line, `NAME;PARAM=a,"b:c";OTHER=d:value` (RFC 5545 §3.1).
/// Names and parameter names are upper-cased; parameter values keep their case, lose their
/// quotes and have RFC 6868 caret escapes (`^n`, `^'`, `^^`) decoded. The value is raw (not unescaped).
public struct ICSContentLine: Sendable, Equatable {
    public let name: String
    public let parameters: [String: [String]]
    public let value: String
    /// The physical line the content line starts on (1-based).
    public let lineNumber: Int

    public init(name: String, parameters: [String: [String]] = [:], value: String, lineNumber: Int = 0) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.lineNumber = lineNumber
    }

    /// The first value of a parameter (`TZID`, `VALUE`, `RANGE`, …).
    public func parameter(_ name: String) -> String? { parameters[name]?.first }

    /// Parses one logical line; nil when it has no name or no `:` outside quotes.
    public init?(parsing text: String, lineNumber: Int = 0) {
        var scalars = Substring(text).unicodeScalars[...]
        func takeName() -> String? {
            var name = ""
            while let scalar = scalars.first,
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_"
            {
                name.unicodeScalars.append(scalar)
                scalars.removeFirst()
            }
            return name.isEmpty ? nil : name.uppercased()
        }
        guard let name = takeName() else { return nil }
        var parameters: [String: [String]] = [:]
        while let next = scalars.first, next == ";" {
            scalars.removeFirst()
            guard let parameterName = takeName(), scalars.first == "=" else { return nil }
            scalars.removeFirst()
            var values: [String] = []
            while true {
                var value = ""
                if scalars.first == "\"" {
                    scalars.removeFirst()
                    while let scalar = scalars.first, scalar != "\"" {
                        value.unicodeScalars.append(scalar)
                        scalars.removeFirst()
                    }
                    guard scalars.first == "\"" else { return nil }
                    scalars.removeFirst()
                } else {
                    while let scalar = scalars.first, scalar != ";", scalar != ":", scalar != "," {
                        value.unicodeScalars.append(scalar)
                        scalars.removeFirst()
                    }
                }
                values.append(Self.decodeCaret(value))
                if scalars.first == "," {
                    scalars.removeFirst()
                    continue
                }
                break
            }
            parameters[parameterName, default: []].append(contentsOf: values)
        }
        guard scalars.first == ":" else { return nil }
        scalars.removeFirst()
        self.init(name: name, parameters: parameters, value: String(scalars), lineNumber: lineNumber)
    }

    private static func decodeCaret(_ value: String) -> String {
        guard value.contains("^") else { return value }
        var result = ""
        var caret = false
        for character in value {
            if caret {
                switch character {
                case "n": result.append("\n")
                case "'": result.append("\"")
                case "^": result.append("^")
                default:
                    result.append("^")
                    result.append(character)
                }
                caret = false
            } else if character == "^" {
                caret = true
            } else {
                result.append(character)
            }
        }
        if caret { result.append("^") }
        return result
    }
}
