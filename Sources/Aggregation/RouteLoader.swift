import Backends
import Foundation
import Model

/// Every problem found in the route files; startup stops on any of them.
public struct RouteLoadError: Error, Sendable, CustomStringConvertible {
    public var problems: [YAMLSourceError]

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

/// Loads `routes/*.yaml` and checks each against the operations: paths, parameter types,
/// defaults and bounds, operation names, argument names and types. Problems name the file,
/// the line and the key.
public struct RouteLoader: Sendable {
    public var registry: OperationRegistry
    /// Paths the gateway serves itself; a route may not take them.
    public var builtinPaths: Set<String>

    public init(
        registry: OperationRegistry = .standard,
        builtinPaths: Set<String> = [
            "/v1/sources", "/v1/stream", "/v1/summary", "/v1/household/summary", "/v1/household/stream",
        ]
    ) {
        self.registry = registry
        self.builtinPaths = builtinPaths
    }

    public func load(directory: String) throws -> [Route] {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RouteLoadError(problems: [
                YAMLSourceError(file: directory, line: nil, keyPath: "", reason: "the routes folder does not exist")
            ])
        }
        let names = try fileManager.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .filter { !$0.hasPrefix(".") }
            .sorted()
        guard !names.isEmpty else {
            throw RouteLoadError(problems: [
                YAMLSourceError(
                    file: directory, line: nil, keyPath: "", reason: "no route files (*.yaml) in the routes folder")
            ])
        }
        var routes: [Route] = []
        var problems: [YAMLSourceError] = []
        var seenPaths: [String: String] = [:]
        var texts: [String: String] = [:]
        for name in names {
            let file = (directory as NSString).appendingPathComponent(name)
            guard let data = fileManager.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                problems.append(
                    YAMLSourceError(file: file, line: nil, keyPath: "", reason: "cannot read the file as UTF-8"))
                continue
            }
            texts[file] = text
            do {
                let route = try parse(text, file: file)
                // `/v1/items/{id}` and `/v1/items/{key}` are the same route to the router.
                let pattern = Self.pathPattern(route.path, placeholder: "{}")
                if let other = seenPaths[pattern] {
                    problems.append(
                        YAMLSourceError(
                            file: file, line: YAMLDocument.line(of: ["path"], in: text), keyPath: "path",
                            reason: "\(route.path) is already defined in \(other)"
                        ))
                } else {
                    seenPaths[pattern] = file
                    routes.append(route)
                }
            } catch let error as RouteLoadError {
                problems += error.problems
            } catch let error as YAMLSourceError {
                problems.append(error)
            }
        }
        problems += Self.valuesFromProblems(routes, texts: texts)
        guard problems.isEmpty else { throw RouteLoadError(problems: problems) }
        return routes
    }

    /// A path parameter's `values_from` names a route of `routes` that takes nothing from its
    /// own path (so that it can be called to find a value).
    static func valuesFromProblems(_ routes: [Route], texts: [String: String]) -> [YAMLSourceError] {
        let simple = Set(routes.filter { $0.pathParameterNames.isEmpty && $0.household == nil }.map(\.path))
        var problems: [YAMLSourceError] = []
        for route in routes {
            for parameter in route.parameters {
                guard let source = parameter.valuesFrom, !simple.contains(source.path) else { continue }
                let key = ["parameters", parameter.name, "values_from"]
                problems.append(
                    YAMLSourceError(
                        file: route.file, line: texts[route.file].flatMap { YAMLDocument.line(of: key, in: $0) },
                        keyPath: YAMLDocument.join(key),
                        reason:
                            "\(source.path) is no route of these files that takes nothing from its path and is not a household route"
                    ))
            }
        }
        return problems
    }

    /// Parses and validates one route file's text.
    public func parse(_ text: String, file: String) throws -> Route {
        let routeFile = try YAMLDocument(file: file).decode(RouteFile.self, from: text, substitute: false)
        var problems: [YAMLSourceError] = []
        func problem(_ path: [String], _ reason: String) {
            problems.append(
                YAMLSourceError(
                    file: file, line: YAMLDocument.line(of: path, in: text), keyPath: YAMLDocument.join(path),
                    reason: reason
                ))
        }

        // `{name}` segments are path parameters; the rest of the path is literal.
        let pathNames = Route.pathParameterNames(in: routeFile.path)
        let literalPath = Self.pathPattern(routeFile.path, placeholder: "p")
        if !literalPath.hasPrefix("/v1/") || literalPath.count < 5
            || !literalPath.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || "/-_".contains($0)) })
            || literalPath.hasSuffix("/") || literalPath.contains("//")
        {
            problem(
                ["path"],
                "must start with /v1/ and use lowercase letters, digits, -, _ and / only (no trailing /), and {name} "
                    + "for a whole segment taken from the path")
        } else if builtinPaths.contains(routeFile.path) {
            problem(["path"], "\(routeFile.path) is served by the gateway itself")
        } else if (routeFile.household != nil) != routeFile.path.hasPrefix(Route.householdPrefix) {
            // The `household` scope is decided by the path: the two must agree.
            problem(
                routeFile.household != nil ? ["household"] : ["path"],
                routeFile.household != nil
                    ? "a household route's path starts with \(Route.householdPrefix)"
                    : "paths under \(Route.householdPrefix) are household routes: add household: {} to this file")
        }
        for name in pathNames {
            if !Self.isIdentifier(name) {
                problem(
                    ["path"], "{\(RouteParameter.shown(name))} is not a parameter name (lowercase letters, digits, _)")
            } else if pathNames.filter({ $0 == name }).count > 1 {
                problem(["path"], "{\(name)} appears more than once")
            } else if let spec = routeFile.parameters?[name] {
                if spec.default != nil {
                    problem(
                        ["parameters", name, "default"], "\(name) is in the path, so it is always given: no default")
                }
                if spec.defaultUnlessGiven != nil {
                    problem(["parameters", name, "default_unless_given"], "\(name) is in the path: it has no default")
                }
                if spec.type != ArgumentValue.Kind.string.rawValue, spec.type != ArgumentValue.Kind.int.rawValue {
                    problem(["parameters", name, "type"], "\(name) is in the path: its type is string or int")
                }
            } else {
                problem(["path"], "{\(name)} is not declared under parameters")
            }
        }

        var deadline = Route.defaultDeadline
        if let value = routeFile.deadline {
            if value.seconds <= 0 || value.seconds > 30 {
                problem(["deadline"], "must be more than 0 and at most 30s")
            } else {
                deadline = value.seconds
            }
        }

        var parameters: [RouteParameter] = []
        for (name, spec) in (routeFile.parameters ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let parameter = validateParameter(
                name, spec, allNames: Set((routeFile.parameters ?? [:]).keys), problem: problem)
            {
                parameters.append(parameter)
            }
        }
        let parametersByName = Dictionary(uniqueKeysWithValues: parameters.map { ($0.name, $0) })
        for parameter in parameters where parameter.valuesFrom != nil && !pathNames.contains(parameter.name) {
            problem(
                ["parameters", parameter.name, "values_from"],
                "values_from applies to a parameter taken from the path; \(parameter.name) is a query parameter")
        }

        var sections: [RouteSection] = []
        if routeFile.sections.isEmpty {
            problem(["sections"], "a route needs at least one section")
        }
        for (name, spec) in routeFile.sections.sorted(by: { $0.key < $1.key }) {
            if !Self.isIdentifier(name) || Route.reservedKeys.contains(name) {
                problem(
                    ["sections", name],
                    "a section name is lowercase letters, digits and _ and not one of \(Route.reservedKeys.sorted().joined(separator: ", "))"
                )
                continue
            }
            if parametersByName[name] != nil {
                problem(["sections", name], "a parameter has the same name; answers carry both at the top level")
                continue
            }
            if spec.optIn != nil, routeFile.household == nil {
                problem(["sections", name, "opt_in"], "opt_in applies to household routes only")
            }
            if let section = validateSection(name, spec, parameters: parametersByName, problem: problem) {
                sections.append(section)
            }
            if let target = spec.mergeInto {
                let targetSpec = routeFile.sections[target]
                if target == name || targetSpec == nil || targetSpec?.mergeInto != nil {
                    problem(
                        ["sections", name, "merge_into"],
                        "names no other section of this route that keeps its own key (sections: \(routeFile.sections.keys.sorted().joined(separator: ", ")))"
                    )
                }
            }
        }

        var household: Route.HouseholdShape?
        if let shape = routeFile.household {
            let combine = shape.combine ?? []
            for (index, name) in combine.enumerated() {
                let target = routeFile.sections[name]
                if target == nil || target?.mergeInto != nil {
                    problem(
                        ["household", "combine"],
                        "\(RouteParameter.shown(name)) names no section of this route that keeps its own key")
                } else if combine[..<index].contains(name) {
                    problem(["household", "combine"], "\(name) is listed twice")
                } else if HouseholdAnswerKeys.reserved.contains(name) {
                    problem(
                        ["household", "combine"],
                        "\(name) is a key of the household's answer itself (\(HouseholdAnswerKeys.reserved.sorted().joined(separator: ", ")))"
                    )
                }
            }
            for parameter in parameters where HouseholdAnswerKeys.reserved.contains(parameter.name) {
                problem(["parameters", parameter.name], "\(parameter.name) is a key of the household's answer itself")
            }
            household = Route.HouseholdShape(combine: combine)
        }

        if routeFile.refreshOnStart == true {
            if household != nil {
                problem(
                    ["refresh_on_start"],
                    "a household route runs its members' own sections: mark the members' route (/v1/today) instead")
            }
            if !pathNames.isEmpty {
                problem(["refresh_on_start"], "a route with path parameters has no default request to refresh")
            }
        }

        guard problems.isEmpty else { throw RouteLoadError(problems: problems) }
        return Route(
            path: routeFile.path, file: file, description: routeFile.description, deadline: deadline,
            parameters: parameters, sections: sections, household: household,
            refreshOnStart: routeFile.refreshOnStart ?? false
        )
    }

    private func validateParameter(
        _ name: String, _ spec: RouteFile.ParameterFile, allNames: Set<String>, problem: ([String], String) -> Void
    ) -> RouteParameter? {
        let path = ["parameters", name]
        guard Self.isIdentifier(name), !Route.reservedKeys.contains(name) else {
            problem(
                path,
                "a parameter name is lowercase letters, digits and _ and not one of \(Route.reservedKeys.sorted().joined(separator: ", "))"
            )
            return nil
        }
        guard let kind = ArgumentValue.Kind(rawValue: spec.type) else {
            problem(
                path + ["type"],
                "unknown type \"\(spec.type)\"; one of \(ArgumentValue.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
            )
            return nil
        }
        var parameter = RouteParameter(
            name: name, kind: kind, description: spec.description, defaultValue: nil,
            defaultUnlessGiven: spec.defaultUnlessGiven ?? [], min: spec.min, max: spec.max,
            maxLength: RouteParameter.maximumStringLength, values: spec.values
        )
        var valid = true
        if spec.min != nil || spec.max != nil, kind != .int {
            problem(path, "min and max apply to int parameters only")
            valid = false
        }
        if let min = spec.min, let max = spec.max, min > max {
            problem(path + ["min"], "min is larger than max")
            valid = false
        }
        if let maxLength = spec.maxLength {
            if kind != .string {
                problem(path + ["max_length"], "max_length applies to string parameters only")
                valid = false
            } else if maxLength < 1 || maxLength > RouteParameter.maximumStringLength {
                problem(path + ["max_length"], "must be between 1 and \(RouteParameter.maximumStringLength)")
                valid = false
            } else {
                parameter.maxLength = maxLength
            }
        }
        if spec.values != nil, kind != .string {
            problem(path + ["values"], "values applies to string parameters only")
            valid = false
        }
        for other in parameter.defaultUnlessGiven where !allNames.contains(other) || other == name {
            problem(path + ["default_unless_given"], "\(other) is not another parameter of this route")
            valid = false
        }
        if let value = spec.example {
            if let text = Self.scalarText(value) {
                do {
                    parameter.example = try parameter.parse(text)
                } catch {
                    problem(path + ["example"], "invalid example: \(error.message)")
                    valid = false
                }
            } else {
                problem(path + ["example"], "an example is a single \(kind.rawValue) value")
                valid = false
            }
        }
        if let text = spec.valuesFrom {
            if let source = RouteParameter.ValuesFrom(text) {
                parameter.valuesFrom = source
            } else {
                problem(
                    path + ["values_from"],
                    "is a route's path and a JSON pointer into its answer, such as /v1/knowledge/recent#/items/0/id")
                valid = false
            }
        }
        if let value = spec.default {
            let text = Self.scalarText(value)
            if kind == .date, let text, let offset = Self.todayOffset(text) {
                parameter.defaultValue = .today(offset: offset)
            } else if let text {
                do {
                    parameter.defaultValue = .value(try parameter.parse(text))
                } catch {
                    problem(path + ["default"], "invalid default: \(error.message)")
                    valid = false
                }
            } else {
                problem(path + ["default"], "a default is a single \(kind.rawValue) value")
                valid = false
            }
        }
        return valid ? parameter : nil
    }

    private func validateSection(
        _ name: String, _ spec: RouteFile.SectionFile, parameters: [String: RouteParameter],
        problem: ([String], String) -> Void
    ) -> RouteSection? {
        let path = ["sections", name]
        guard let operation = registry[spec.operation] else {
            problem(
                path + ["operation"],
                "unknown operation \"\(spec.operation)\"; known: \(registry.names.joined(separator: ", "))")
            return nil
        }
        var valid = true
        var bindings: [String: RouteSection.Binding] = [:]
        let declared = Dictionary(uniqueKeysWithValues: operation.arguments.map { ($0.name, $0) })
        for (argument, value) in (spec.arguments ?? [:]).sorted(by: { $0.key < $1.key }) {
            let argumentPath = path + ["arguments", argument]
            guard let expected = declared[argument] else {
                problem(
                    argumentPath,
                    "\(operation.name) takes no argument \"\(argument)\"; it takes \(operation.arguments.map(\.name).joined(separator: ", "))"
                )
                valid = false
                continue
            }
            if case .string(let text) = value, text.hasPrefix("$") {
                let parameterName = String(text.dropFirst())
                guard let parameter = parameters[parameterName] else {
                    problem(argumentPath, "\(text) names no parameter of this route")
                    valid = false
                    continue
                }
                guard parameter.kind == expected.kind else {
                    problem(
                        argumentPath,
                        "\(operation.name) wants a \(expected.kind.rawValue) for \(argument), but \(text) is a \(parameter.kind.rawValue)"
                    )
                    valid = false
                    continue
                }
                bindings[argument] = .parameter(parameterName)
            } else if let literal = Self.literal(value, as: expected.kind) {
                bindings[argument] = .literal(literal)
            } else {
                problem(argumentPath, "not a \(expected.kind.rawValue) (write $name to pass a parameter)")
                valid = false
            }
        }
        for argument in operation.arguments where argument.required && bindings[argument.name] == nil {
            problem(path + ["arguments"], "\(operation.name) needs the argument \(argument.name)")
            valid = false
        }
        if let ttl = spec.ttl, ttl.seconds <= 0 {
            problem(path + ["ttl"], "must be more than 0")
            valid = false
        }
        return valid
            ? RouteSection(
                name: name, operation: operation, arguments: bindings, ttl: spec.ttl?.seconds,
                mergeInto: spec.mergeInto, optIn: spec.optIn ?? false) : nil
    }

    /// `path` with every `{name}` segment replaced by `placeholder`.
    static func pathPattern(_ path: String, placeholder: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.count > 2 && segment.hasPrefix("{") && segment.hasSuffix("}") ? placeholder : String(segment)
        }.joined(separator: "/")
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.first, first.isLowercase || first == "_" else { return false }
        return name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
    }

    /// A scalar of a route file as the query would give it; nil for anything but a single value.
    static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let string): string
        case .int(let number): String(number)
        case .double(let number) where number.rounded() == number && abs(number) < 9e15: String(Int64(number))
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    /// `today` → 0, `today+2` → 2, `today-1` → -1.
    static func todayOffset(_ text: String) -> Int? {
        guard text.hasPrefix("today") else { return nil }
        let rest = text.dropFirst(5)
        if rest.isEmpty { return 0 }
        guard let sign = rest.first, sign == "+" || sign == "-", let days = Int(rest.dropFirst()), days <= 366 else {
            return nil
        }
        return sign == "+" ? days : -days
    }

    static func literal(_ value: JSONValue, as kind: ArgumentValue.Kind) -> ArgumentValue? {
        switch (kind, value) {
        case (.string, .string(let text)): .string(text)
        case (.int, .int(let number)): .int(number)
        case (.int, .double(let number)) where number.rounded() == number && abs(number) < 9e15: .int(Int(number))
        case (.bool, .bool(let flag)): .bool(flag)
        case (.date, .string(let text)): LocalDate(text).map { .date($0) }
        default: nil
        }
    }
}
