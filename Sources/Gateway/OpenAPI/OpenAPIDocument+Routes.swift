import Aggregation
import Backends
import Foundation
import Model
import OpenAPIKit

/// The route endpoints: one GET per loaded route file, with its parameters and an answer made of
/// the sections' operation bodies (`BackendOperation.bodySchema`).
extension OpenAPIDocument {
    /// - Parameter links: the 200 answer's links: to the routes whose path parameters take their
    ///   real values from it (`values_from`).
    static func routeOperation(
        _ route: Route, operationID: String, answer: String, links: OpenAPI.Link.Map = [:]
    ) -> OpenAPI.Operation {
        let file = (route.file as NSString).lastPathComponent
        var description = route.description ?? "GET \(route.path)"
        description += "\n\nSections (each absent when the profile has not configured its backend):"
        for section in route.sections {
            description += "\n- `\(section.name)`: \(section.operation.name) (\(section.operation.backend))"
        }
        description += "\n\nDeadline \(UpstreamHTTP.describe(route.deadline)); route file \(file)."
        var parameters: OpenAPI.Parameter.Array = route.parameters.map { .b(parameter($0, of: route)) }
        parameters.append(.reference(.component(named: "IfNoneMatch")))
        parameters.append(.reference(.component(named: "CacheControl")))
        let answerContent = jsonContent(.reference(.component(named: answer)))
        var responses: OpenAPI.Response.Map = [
            .status(code: 200): .b(
                OpenAPI.Response(
                    description: "At least one section has data (fresh or stale).", headers: cachingHeaders,
                    content: answerContent, links: links)),
            .status(code: 304): .b(notModified),
            .status(code: 400): responseRef("BadRequest"),
        ]
        if route.household != nil {
            responses[.status(code: 404)] = .b(
                OpenAPI.Response(
                    description: "`no_household`: the config names no household (`household:`).",
                    headers: requestIDHeader, content: jsonContent(ErrorBody.schemaComponent.reference)))
            description += "\n\nNeeds the `household` scope when the gateway has client keys."
        } else if route.sections.count == 1 {
            responses[.status(code: 404)] = .b(
                OpenAPI.Response(
                    description:
                        "`not_found`: the backend of the route's only section says the thing asked for does not "
                        + "exist (an error answer, not stored).",
                    headers: requestIDHeader, content: jsonContent(ErrorBody.schemaComponent.reference)))
        }
        responses[.status(code: 502)] = .b(
            OpenAPI.Response(
                description: "No section has data and at least one failed; the same JSON.",
                headers: cachingHeaders, content: answerContent))
        responses[.status(code: 504)] = .b(
            OpenAPI.Response(
                description: "Every section timed out; the same JSON.", headers: cachingHeaders,
                content: answerContent))
        responses[.default] = responseRef("Error")
        return OpenAPI.Operation(
            tags: ["routes"],
            summary: summary(route.description) ?? "GET \(route.path)",
            description: description,
            operationId: operationID,
            parameters: parameters,
            responses: responses
        )
    }

    /// The first sentence of a description.
    static func summary(_ description: String?) -> String? {
        guard let description, !description.isEmpty else { return nil }
        if let range = description.range(of: ". ") {
            return String(description[..<range.lowerBound]) + "."
        }
        return description
    }

    static func parameter(_ parameter: RouteParameter, of route: Route) -> OpenAPI.Parameter {
        let defaultValue: AnyCodable? =
            if case .value(let value)? = parameter.defaultValue { anyCodable(value) } else { nil }
        let schema: JSONSchema
        var example: AnyCodable?
        switch parameter.kind {
        case .date:
            schema = .string(format: .date, defaultValue: defaultValue)
            example = AnyCodable(exampleDate)
        case .int:
            schema = .integer(
                maximum: parameter.max.map { ($0, exclusive: false) },
                minimum: parameter.min.map { ($0, exclusive: false) }, defaultValue: defaultValue)
            example = AnyCodable(parameter.min ?? parameter.max.map { Swift.min($0, 1) } ?? 1)
        case .string:
            schema = .string(
                maxLength: parameter.maxLength, allowedValues: parameter.values?.map { AnyCodable($0) },
                defaultValue: defaultValue)
            if let values = parameter.values {
                example = AnyCodable(values.first ?? "")
            } else {
                example = AnyCodable(String("example".prefix(parameter.maxLength)))
            }
        case .bool:
            schema = .boolean(defaultValue: defaultValue)
            example = AnyCodable(true)
        }

        var text = parameter.description.map { $0.hasSuffix(".") ? $0 : $0 + "." } ?? ""
        var extensions: [String: AnyCodable] = [:]
        let unless =
            parameter.defaultUnlessGiven.isEmpty
            ? "" : ", unless \(parameter.defaultUnlessGiven.joined(separator: " or ")) is given"
        switch parameter.defaultValue {
        case .value(let value)?:
            example = anyCodable(value)
            text += " Default: \(value.description)\(unless)."
        case .today(let offset)?:
            let word = offset == 0 ? "today" : offset > 0 ? "today+\(offset)" : "today\(offset)"
            extensions["x-default"] = AnyCodable(word)
            let days =
                offset == 0 ? "" : " \(offset > 0 ? "plus" : "minus") \(abs(offset)) day\(abs(offset) == 1 ? "" : "s")"
            text += " Default: today in the gateway's timezone\(days)\(unless)."
        case nil:
            break
        }
        let inPath = route.pathParameterNames.contains(parameter.name)
        if let declared = parameter.example {
            example = anyCodable(declared)
        } else if inPath {
            // A path parameter's example is a value of the route file's (`example:`), none made up.
            example = nil
        }
        if let source = parameter.valuesFrom {
            text += " Real values: \(source.pointer) of the answer of GET \(source.path) (the link there)."
        }
        // A `{name}` of the path: always given, so always required.
        let context: OpenAPI.Parameter.Context =
            inPath
            ? .path(schemaOrContent: .schema(.init(schema, style: .default(for: .path), example: example)))
            : .query(
                required: isRequired(parameter, of: route),
                schemaOrContent: .schema(.init(schema, style: .default(for: .query), example: example)))
        return OpenAPI.Parameter(
            name: parameter.name,
            context: context,
            description: text.trimmingCharacters(in: .whitespaces),
            vendorExtensions: extensions)
    }

    /// A parameter without a default that some section passes to an argument its operation requires.
    static func isRequired(_ parameter: RouteParameter, of route: Route) -> Bool {
        guard parameter.defaultValue == nil else { return false }
        return route.sections.contains { section in
            section.arguments.contains { argument, binding in
                binding == .parameter(parameter.name)
                    && section.operation.arguments.contains { $0.name == argument && $0.required }
            }
        }
    }

    static func anyCodable(_ value: ArgumentValue) -> AnyCodable {
        switch value {
        case .date(let date): AnyCodable(date.description)
        case .int(let number): AnyCodable(number)
        case .string(let text): AnyCodable(text)
        case .bool(let flag): AnyCodable(flag)
        }
    }

    /// The aggregate answer of one route: parameters echoed as strings, the summary flags,
    /// per-section metadata, and each section's body (any JSON for an operation that declares
    /// no schema).
    static func answerSchema(_ route: Route) -> JSONSchema {
        var (properties, required) = parameterProperties(route)
        required += ["complete", "stale", "age_seconds", "sections"]
        properties["complete"] = .boolean(description: "Every section is ok (fresh, or stale while revalidating).")
        properties["stale"] = .boolean(description: "Some section serves data past its freshness.")
        properties["age_seconds"] = .integer(
            description: "Age of the oldest data in the answer.", minimum: (0, exclusive: false))
        let (sections, reports) = sectionProperties(route)
        properties.merge(sections) { _, section in section }
        properties["sections"] = .closedObject(
            reports, required: [],
            description: "Per section (configured backends only): status, cache outcome, age, backend, duration.")
        return .closedObject(
            properties, required: required,
            description: "The answer of \(route.path): 200, or 502/504 when no section has data.")
    }

    /// Each parameter's value as the answer echoes it (a string), and which are always there.
    static func parameterProperties(_ route: Route) -> (properties: [String: JSONSchema], required: [String]) {
        var properties: [String: JSONSchema] = [:]
        var required: [String] = []
        for parameter in route.parameters {
            let description = "The value of \(parameter.name) the answer is for (given or default), as a string."
            properties[parameter.name] =
                switch parameter.kind {
                case .date: .string(format: .date, description: description)
                case .int: .string(description: description, pattern: "^-?[0-9]+$")
                case .string:
                    .string(description: description, allowedValues: parameter.values?.map { AnyCodable($0) })
                case .bool: .enumeration(["true", "false"], description: description)
                }
            if parameter.defaultValue != nil, parameter.defaultUnlessGiven.isEmpty {
                required.append(parameter.name)
            }
        }
        return (properties, required)
    }

    /// One key per section that keeps its own (its operation's body, or null), and each section's
    /// report schema.
    static func sectionProperties(_ route: Route) -> (properties: [String: JSONSchema], reports: [String: JSONSchema]) {
        var properties: [String: JSONSchema] = [:]
        var reports: [String: JSONSchema] = [:]
        for section in route.sections {
            reports[section.name] = SectionReport.schemaComponent.reference
            // A merged section's list joins its target's key; it has no key of its own.
            guard section.mergeInto == nil else { continue }
            let joining = route.sections.filter { $0.mergeInto == section.name }.map(\.operation.name)
            properties[section.name] = .orNull(
                section.operation.bodySchema.reference,
                description:
                    "Section \(section.name): the body of \(section.operation.name); null when the section has no data; "
                    + "absent when the profile has not configured \(section.operation.backend)."
                    + (joining.isEmpty
                        ? "" : " The lists of \(joining.joined(separator: ", ")) join it, ordered by start.")
            )
        }
        return (properties, reports)
    }
}
