import Foundation
import Hummingbird
import Model

/// FastAPI / pydantic 2 request validation, as far as PRSNL's routes need it.
enum PRSNLValidation {
    // MARK: Query parameters

    /// An `int` query parameter with optional `ge` / `le` bounds; nil value = not sent.
    static func queryInt(
        _ query: QueryItems, _ name: String, ge: Int? = nil, le: Int? = nil, errors: inout [PydanticError]
    ) -> Int? {
        guard let raw = query.value(name) else { return nil }
        let loc: [JSONValue] = [.string("query"), .string(name)]
        guard let value = pythonInt(raw) else {
            errors.append(
                PydanticError(
                    type: "int_parsing", loc: loc,
                    msg: "Input should be a valid integer, unable to parse string as an integer",
                    input: .string(raw)
                )
            )
            return nil
        }
        if let error = bounds(value, .string(raw), loc: loc, ge: ge, le: le) {
            errors.append(error)
            return nil
        }
        return value
    }

    /// pydantic's lax str → int: surrounding whitespace, a sign, digits and `_` separators.
    static func pythonInt(_ raw: String) -> Int? {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("_"), !trimmed.hasSuffix("_"), !trimmed.contains("__") else { return nil }
        return Int(trimmed.replacingOccurrences(of: "_", with: ""))
    }

    static func bounds(_ value: Int, _ input: JSONValue, loc: [JSONValue], ge: Int?, le: Int?) -> PydanticError? {
        if let ge, value < ge {
            return PydanticError(
                type: "greater_than_equal", loc: loc, msg: "Input should be greater than or equal to \(ge)",
                input: input,
                ctx: ["ge": .int(ge)]
            )
        }
        if let le, value > le {
            return PydanticError(
                type: "less_than_equal", loc: loc, msg: "Input should be less than or equal to \(le)", input: input,
                ctx: ["le": .int(le)]
            )
        }
        return nil
    }

    // MARK: Body models (read with `FastAPIBody.object`)

    /// One field of a body model.
    enum Kind {
        case string(min: Int? = nil, max: Int? = nil)
        case int(ge: Int? = nil, le: Int? = nil)
        case float(ge: Double? = nil, le: Double? = nil)
        case bool
        case stringList
        case literal([String])
        case object
    }

    struct Field {
        var name: String
        var kind: Kind
        var required = false
        var nullable = false
    }

    /// Validates `object` against `fields` (in declaration order, the order errors come out in).
    /// Success holds the sent keys only, nulls as `.null`.
    static func validate(_ object: JSONObject, _ fields: [Field]) -> Checked<[String: JSONValue], Response> {
        var errors: [PydanticError] = []
        var values: [String: JSONValue] = [:]
        for field in fields {
            let loc: [JSONValue] = [.string("body"), .string(field.name)]
            guard let raw = object[field.name] else {
                if field.required { errors.append(.missing(loc, input: .object(object))) }
                continue
            }
            if raw == .null, field.nullable {
                values[field.name] = .null
                continue
            }
            if let error = check(raw, field.kind, loc: loc) {
                errors += error
            } else {
                values[field.name] = normalized(raw, field.kind)
            }
        }
        if !errors.isEmpty { return .failure(PydanticError.response(errors)) }
        return .success(values)
    }

    private static func normalized(_ raw: JSONValue, _ kind: Kind) -> JSONValue {
        switch (kind, raw) {
        case (.bool, .int(let i)): return .bool(i == 1)
        case (.bool, .string(let s)): return .bool(PydanticError.laxBool(s) ?? false)
        case (.float, .int(let i)): return .double(Double(i))
        default: return raw
        }
    }

    private static func check(_ raw: JSONValue, _ kind: Kind, loc: [JSONValue]) -> [PydanticError]? {
        switch kind {
        case .string(let min, let max):
            guard case .string(let s) = raw else { return [.stringType(loc, input: raw)] }
            return PydanticError.stringLength(s, min: min, max: max, loc: loc, input: raw).map { [$0] }
        case .int(let ge, let le):
            let value: Int
            switch raw {
            case .int(let i): value = i
            case .double(let d) where d == d.rounded(): value = Int(d)
            case .string(let s):
                guard let i = pythonInt(s) else {
                    return [
                        PydanticError(
                            type: "int_parsing", loc: loc,
                            msg: "Input should be a valid integer, unable to parse string as an integer",
                            input: raw
                        )
                    ]
                }
                value = i
            default:
                return [PydanticError(type: "int_type", loc: loc, msg: "Input should be a valid integer", input: raw)]
            }
            return bounds(value, raw, loc: loc, ge: ge, le: le).map { [$0] }
        case .float(let ge, let le):
            let value: Double
            switch raw {
            case .int(let i): value = Double(i)
            case .double(let d): value = d
            case .string(let s):
                guard let d = Double(s.trimmingCharacters(in: .whitespaces)) else {
                    return [
                        PydanticError(
                            type: "float_parsing", loc: loc,
                            msg: "Input should be a valid number, unable to parse string as a number",
                            input: raw
                        )
                    ]
                }
                value = d
            default:
                return [PydanticError(type: "float_type", loc: loc, msg: "Input should be a valid number", input: raw)]
            }
            if let ge, value < ge {
                return [
                    PydanticError(
                        type: "greater_than_equal", loc: loc, msg: "Input should be greater than or equal to \(ge)",
                        input: raw,
                        ctx: ["ge": .double(ge)]
                    )
                ]
            }
            if let le, value > le {
                return [
                    PydanticError(
                        type: "less_than_equal", loc: loc, msg: "Input should be less than or equal to \(le)",
                        input: raw,
                        ctx: ["le": .double(le)]
                    )
                ]
            }
            return nil
        case .bool:
            switch raw {
            case .bool: return nil
            case .int(let i) where i == 0 || i == 1: return nil
            case .string(let s) where PydanticError.laxBool(s) != nil: return nil
            case .int, .double, .string:
                return [
                    PydanticError(
                        type: "bool_parsing", loc: loc,
                        msg: "Input should be a valid boolean, unable to interpret input", input: raw)
                ]
            default:
                return [PydanticError(type: "bool_type", loc: loc, msg: "Input should be a valid boolean", input: raw)]
            }
        case .stringList:
            guard case .array(let items) = raw else {
                return [PydanticError(type: "list_type", loc: loc, msg: "Input should be a valid list", input: raw)]
            }
            let errors: [PydanticError] = items.enumerated().compactMap { i, item in
                if case .string = item { return nil }
                return .stringType(loc + [.int(i)], input: item)
            }
            return errors.isEmpty ? nil : errors
        case .literal(let allowed):
            if case .string(let s) = raw, allowed.contains(s) { return nil }
            let quoted = allowed.map { "'\($0)'" }
            let expected =
                quoted.count > 1 ? quoted.dropLast().joined(separator: ", ") + " or " + quoted.last! : quoted.joined()
            return [
                PydanticError(
                    type: "literal_error", loc: loc, msg: "Input should be \(expected)", input: raw,
                    ctx: ["expected": .string(expected)])
            ]
        case .object:
            if case .object = raw { return nil }
            return [PydanticError(type: "dict_type", loc: loc, msg: "Input should be a valid dictionary", input: raw)]
        }
    }
}
