import Foundation
import Yams

/// A problem in a YAML file, located by file, line and key path.
public struct YAMLSourceError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var keyPath: String
    public var reason: String

    public init(file: String, line: Int?, keyPath: String, reason: String) {
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.reason = reason
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if !keyPath.isEmpty { text += ": \(keyPath)" }
        return text + ": " + reason
    }
}

/// Decodes `Codable` types from YAML with errors a person can act on: the file, the line, the
/// key path and the reason; keys the type does not know are errors, not silently ignored.
/// `${ENV_VAR}` and `${file:/path}` in any scalar are replaced before decoding.
public struct YAMLDocument: Sendable {
    public var file: String
    public var environment: [String: String]
    /// Which backend sections profiles may hold (see `BackendSettingsCatalog`).
    public var backends: BackendSettingsCatalog

    public init(
        file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        backends: BackendSettingsCatalog = BackendSettingsCatalog([])
    ) {
        self.file = file
        self.environment = environment
        self.backends = backends
    }

    public func decode<T: Codable>(_ type: T.Type, from text: String, substitute: Bool = true) throws -> T {
        var node: Node
        do {
            node = try Yams.compose(yaml: text) ?? Node.mapping(Node.Mapping([]))
        } catch let error as YamlError {
            throw Self.sourceError(for: error, file: file, text: text)
        }
        try Self.checkSize(node, file: file)
        if substitute {
            node = try substituted(node, path: [])
        }
        let value: T
        do {
            value = try YAMLDecoder().decode(T.self, from: node, userInfo: [.backendSettings: backends])
        } catch let error as DecodingError {
            throw sourceError(for: error, in: node)
        } catch let error as YAMLSourceError {
            throw error
        } catch let error as YamlError {
            throw Self.sourceError(for: error, file: file, text: text)
        } catch {
            throw YAMLSourceError(file: file, line: nil, keyPath: "", reason: "\(error)")
        }
        let encoded = try JSONSerialization.jsonObject(with: JSONCoding.encode(value), options: [.fragmentsAllowed])
        try checkUnknownKeys(node, known: encoded, path: [])
        return value
    }

    /// The most values (scalars, mappings, sequences) a config or route file may hold, counting
    /// an aliased value each time it is used: far above any real file (a few hundred), far below
    /// what an alias bomb ("billion laughs": a few lines whose aliases multiply) would make every
    /// later pass do.
    static let maximumValues = 100_000

    static func checkSize(_ root: Node, file: String) throws {
        var count = 0
        var stack = [root]
        while let node = stack.popLast() {
            count += 1
            guard count <= maximumValues else {
                throw YAMLSourceError(
                    file: file, line: nil, keyPath: "",
                    reason: "the file holds more than \(maximumValues) values (counting each use of an alias)")
            }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping {
                    stack.append(key)
                    stack.append(value)
                }
            case .sequence(let sequence): stack.append(contentsOf: sequence)
            default: break
            }
        }
    }

    /// The most bytes a `${file:…}` reference reads: a secret or an address, not a document.
    static let maximumReferencedFileBytes = 64 * 1024

    /// The line of the node at `path` (mapping keys and `[index]`), for errors found after
    /// decoding. Nil when the text is not YAML or the path is not in it.
    public static func line(of path: [String], in text: String) -> Int? {
        guard var node = try? Yams.compose(yaml: text) else { return nil }
        var line = node.mark?.line
        for name in path {
            if name.hasPrefix("["), let index = Int(name.dropFirst().dropLast()), let sequence = node.sequence,
                index < sequence.count
            {
                node = sequence[index]
            } else if let mapping = node.mapping, let pair = mapping.first(where: { $0.key.string == name }) {
                line = pair.key.mark?.line ?? line
                node = pair.value
                continue
            } else {
                return line
            }
            line = node.mark?.line ?? line
        }
        return line
    }

    // MARK: substitution

    private func substituted(_ node: Node, path: [String]) throws -> Node {
        switch node {
        case .scalar(var scalar):
            guard scalar.string.contains("${") else { return node }
            scalar.string = try expand(scalar.string, line: scalar.mark.map { $0.line }, path: path)
            return .scalar(scalar)
        case .mapping(let mapping):
            var pairs: [(Node, Node)] = []
            for (key, value) in mapping {
                pairs.append((key, try substituted(value, path: path + [key.string ?? "?"])))
            }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .sequence(let sequence):
            var items: [Node] = []
            for (index, item) in sequence.enumerated() {
                items.append(try substituted(item, path: path + ["[\(index)]"]))
            }
            return .sequence(Node.Sequence(items, sequence.tag, sequence.style, sequence.mark))
        case .alias:
            return node
        }
    }

    private func expand(_ text: String, line: Int?, path: [String]) throws -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw YAMLSourceError(file: file, line: line, keyPath: Self.join(path), reason: "unclosed ${ in value")
            }
            let reference = String(rest[open.upperBound..<close])
            if reference.hasPrefix("file:") {
                let filePath = String(reference.dropFirst(5))
                // At most a little more than the limit is read, so a huge file or a device
                // such as /dev/zero costs nothing.
                let handle = FileHandle(forReadingAtPath: filePath)
                defer { try? handle?.close() }
                let data = handle.flatMap { try? $0.read(upToCount: Self.maximumReferencedFileBytes + 1) ?? Data() }
                if let data, data.count > Self.maximumReferencedFileBytes {
                    throw YAMLSourceError(
                        file: file, line: line, keyPath: Self.join(path),
                        reason:
                            "file \(filePath) named by ${file:…} is larger than \(Self.maximumReferencedFileBytes / 1024) KB"
                    )
                }
                guard let data,
                    let content = String(data: data, encoding: .utf8)
                else {
                    throw YAMLSourceError(
                        file: file, line: line, keyPath: Self.join(path),
                        reason: "cannot read file \(filePath) named by ${file:…}")
                }
                output += content.trimmingCharacters(in: .newlines)
            } else {
                guard !reference.isEmpty else {
                    throw YAMLSourceError(
                        file: file, line: line, keyPath: Self.join(path), reason: "empty ${} reference")
                }
                guard let value = environment[reference] else {
                    throw YAMLSourceError(
                        file: file, line: line, keyPath: Self.join(path),
                        reason: "environment variable \(reference) is not set")
                }
                output += value
            }
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }

    // MARK: unknown keys

    private func checkUnknownKeys(_ node: Node, known: Any, path: [String]) throws {
        switch node {
        case .mapping(let mapping):
            guard let knownObject = known as? [String: Any] else { return }
            for (key, value) in mapping {
                let name = key.string ?? "?"
                guard let knownValue = knownObject[name] else {
                    let allowed = knownObject.keys.sorted().joined(separator: ", ")
                    throw YAMLSourceError(
                        file: file, line: key.mark.map { $0.line }, keyPath: Self.join(path + [name]),
                        reason: "unknown key" + (allowed.isEmpty ? "" : " (known here: \(allowed))")
                    )
                }
                try checkUnknownKeys(value, known: knownValue, path: path + [name])
            }
        case .sequence(let sequence):
            guard let knownArray = known as? [Any] else { return }
            for (index, item) in sequence.enumerated() where index < knownArray.count {
                try checkUnknownKeys(item, known: knownArray[index], path: path + ["[\(index)]"])
            }
        default:
            return
        }
    }

    // MARK: locating decoding errors

    private func sourceError(for error: DecodingError, in root: Node) -> YAMLSourceError {
        switch error {
        case .keyNotFound(let key, let context):
            let names = Self.names(context.codingPath)
            return YAMLSourceError(
                file: file, line: Self.node(at: context.codingPath, in: root)?.mark?.line,
                keyPath: Self.join(names + [key.stringValue]), reason: "missing required key"
            )
        case .typeMismatch(let type, let context):
            return located(context, in: root, reason: "expected \(Self.friendly(type))")
        case .valueNotFound(let type, let context):
            return located(context, in: root, reason: "expected \(Self.friendly(type)), found nothing")
        case .dataCorrupted(let context):
            return located(context, in: root, reason: context.debugDescription)
        @unknown default:
            return YAMLSourceError(file: file, line: nil, keyPath: "", reason: "\(error)")
        }
    }

    private func located(_ context: DecodingError.Context, in root: Node, reason: String) -> YAMLSourceError {
        var path = context.codingPath
        var line = Self.keyLine(at: path, in: root)
        while line == nil, !path.isEmpty {
            path.removeLast()
            line = Self.keyLine(at: path, in: root)
        }
        return YAMLSourceError(
            file: file, line: line, keyPath: Self.join(Self.names(context.codingPath)), reason: reason
        )
    }

    /// The line of the key that names the node at `path` (where a person looks for the
    /// problem), or of the node itself when it is a list item or the root.
    static func keyLine(at path: [any CodingKey], in root: Node) -> Int? {
        guard let last = path.last, last.intValue == nil,
            let parent = node(at: Array(path.dropLast()), in: root), let mapping = parent.mapping
        else { return node(at: path, in: root)?.mark?.line }
        return mapping.first { $0.key.string == last.stringValue }?.key.mark?.line
    }

    static func node(at path: [any CodingKey], in root: Node) -> Node? {
        var current = root
        for key in path {
            if let index = key.intValue, let sequence = current.sequence {
                guard index < sequence.count else { return nil }
                current = sequence[index]
            } else if let mapping = current.mapping, let next = mapping[key.stringValue] {
                current = next
            } else {
                return nil
            }
        }
        return current
    }

    static func names(_ path: [any CodingKey]) -> [String] {
        path.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
    }

    /// `profiles.default.eightalls.base_url`, `enrollments[0].token`: how errors print a key path.
    public static func join(_ names: [String]) -> String {
        var text = ""
        for name in names {
            if name.hasPrefix("[") || text.isEmpty {
                text += name
            } else {
                text += "." + name
            }
        }
        return text
    }

    static func friendly(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is String.Type: return "a string"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") { return "a mapping of keys to values" }
            return name
        }
    }

    /// A Yams error as a problem, a file and a line — never the text around it. Yams' own
    /// descriptions quote the document: a scanner or parser error a snippet of the line, a
    /// duplicated key the *whole file* (every client key, feed key and calendar address in it),
    /// and those messages go to `/readyz`, the log and `daygate check`. Only libyaml's fixed
    /// problem phrases and the duplicated key's name (when it looks like a name) are kept.
    public static func sourceError(for error: YamlError, file: String, text: String) -> YAMLSourceError {
        YAMLSourceError(
            file: file, line: line(of: error, in: text), keyPath: "", reason: "not valid YAML (\(problem(of: error)))")
    }

    static func line(of error: YamlError, in text: String) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        case .duplicatedKeysInMapping(_, let context):
            return context.mark.line
        case .reader(_, let offset, _, _):
            // The offset counts characters of the text (Yams converts libyaml's byte offset).
            guard let offset, offset >= 0 else { return nil }
            return text.prefix(offset).reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        case .no, .memory, .writer, .emitter, .representer, .dataCouldNotBeDecoded:
            return nil
        }
    }

    static func problem(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _),
            .reader(let problem, _, _, _):
            // libyaml's fixed phrases ("found character that cannot start any token"); the
            // context and the snippet that Yams' description adds are left out.
            return fixedPhrase(problem)
        case .duplicatedKeysInMapping(let duplicates, _):
            let names = duplicates.filter(isPlainKeyName).sorted()
            return names.isEmpty
                ? "a key appears twice in one mapping"
                : "key \(names.map { "'\($0)'" }.joined(separator: ", ")) appears twice in one mapping"
        case .dataCouldNotBeDecoded:
            return "the text is not UTF-8"
        case .memory:
            return "out of memory"
        case .no, .writer, .emitter, .representer:
            return "cannot be read"
        }
    }

    /// A key name as the config's own keys and names are (`feed_key`, `kitchen-tablet`,
    /// `eightalls.events`): short, lowercase and with few digits. A pasted secret in a key's place
    /// is longer or mixed.
    static func isPlainKeyName(_ name: String) -> Bool {
        (1...32).contains(name.count) && name.filter(\.isNumber).count <= 4
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == "."
            }
    }

    /// libyaml's problem strings are constants of its C source; anything else (a future Yams
    /// that puts text there) is cut down to the words before a quote or a line break.
    static func fixedPhrase(_ problem: String) -> String {
        let cut = problem.prefix { $0 != "\n" && $0 != "'" && $0 != "\"" && $0 != "`" }
        let phrase = cut.prefix(120).trimmingCharacters(in: .whitespaces)
        return phrase.isEmpty ? "cannot be read" : phrase
    }
}
