import Backends
import Foundation
import Model
import Testing

/// Every reader's name, one test case each.
let answerReaderNames = BackendCatalog.all.flatMap(\.answerReaders).map(\.name)

/// Every backend's answer readers (`BackendAnswerReader`) fed what no server sent: each must
/// return (refusing is fine) without a trap. The cases come from outside the readers' own
/// assumptions: hostile bodies, and every field of the seed corpus
/// (`Tests/Fuzz/corpus/answers/<reader>/`, the simulators' answers) replaced with a hostile value.
struct BackendAnswerReadersTests {
    static let readers: [BackendAnswerReader] = BackendCatalog.all.flatMap(\.answerReaders)

    /// Zones at both ends of the offsets and one with DST: a day's window differs in each.
    static let zones = ["UTC", "Europe/Amsterdam", "Pacific/Kiritimati", "Pacific/Pago_Pago"].compactMap {
        TimeZone(identifier: $0)
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/answers")

    /// The seed answers of `reader`: the corpus folder's files in name order, then the ones the
    /// reader carries (`BackendAnswerReader.seeds`, in the backend's home).
    static func seeds(_ reader: String) -> [[UInt8]] {
        let folder = corpus.appendingPathComponent(reader)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let files = names.sorted().compactMap { try? Data(contentsOf: folder.appendingPathComponent($0)) }.map {
            Array($0)
        }
        return files + (readers.first { $0.name == reader }?.seeds ?? [])
    }

    @Test func everyBackendDeclaresReadersNamedAfterIt() {
        var names: Set<String> = []
        for backend in BackendCatalog.all {
            #expect(!backend.answerReaders.isEmpty, "\(backend.name) declares no answer reader")
            for reader in backend.answerReaders {
                #expect(reader.name.hasPrefix(backend.name + "."), "\(reader.name) is not named after \(backend.name)")
                #expect(names.insert(reader.name).inserted, "\(reader.name) is declared twice")
            }
        }
    }

    @Test func everyReaderHasASeedCorpus() {
        for reader in Self.readers {
            #expect(
                !Self.seeds(reader.name).isEmpty,
                "no seed answers in Tests/Fuzz/corpus/answers/\(reader.name)/ or the reader's seeds")
        }
    }

    /// Bodies no backend sends, the same for every reader. The nested ones found a CPU bomb:
    /// read through `JSONDecoder`, 500 levels cost each reader seconds (every failed type try
    /// carried its whole coding path); `JSONValue(parsing:)` reads them in one pass.
    static let hostileBodies: [[UInt8]] = {
        func text(_ value: String) -> [UInt8] { Array(value.utf8) }
        let deep = 10_000
        let nearLimit = 500
        var bodies: [[UInt8]] = [
            [], text("null"), text("[]"), text("{}"), text("\"\""), text("0"), text("-1"), text("true"),
            text("1e309"), text("-1e309"), text("NaN"), text("Infinity"), text("-Infinity"),
            text("123456789012345678901234567890"), text("-9223372036854775809"), text("9223372036854775807"),
            text("{\"data\":null}"), text("{\"data\":{\"data\":{}}}"), text("{\"success\":false}"),
            text("{\"success\":false,\"detail\":[{\"loc\":[\"body\",1,null],\"msg\":\"x\"}]}"),
            text("[null,1,\"x\",[],{}]"), text("{\"a\":1,\"a\":2}"),
            text(String(repeating: "[", count: deep) + String(repeating: "]", count: deep)),
            text(String(repeating: "{\"a\":", count: deep) + "1" + String(repeating: "}", count: deep)),
            text(String(repeating: "[", count: deep)),
            text(String(repeating: "[", count: nearLimit) + String(repeating: "]", count: nearLimit)),
            text(String(repeating: "{\"data\":", count: nearLimit) + "[]" + String(repeating: "}", count: nearLimit)),
            text("\"" + String(repeating: "x", count: 20_000) + "\""),
            text("{\"error\":\"" + String(repeating: "\\u0000", count: 2_000) + "\"}"),
            text("[" + Array(repeating: "{}", count: 2_000).joined(separator: ",") + "]"),
            [0xFF, 0xFE, 0xFD], text("{\"title\":\"") + [0xC3, 0x28] + text("\"}"), [0xEF, 0xBB, 0xBF] + text("{}"),
            text("{\"items\":[{\"id\":\"1\"}]}\u{0}trailing"),
            // A login's `Set-Cookie` lines (the session cookie reader reads a body as those).
            text("tickedify.sid=s%3Aabc; Max-Age=1e400; Path=/"),
            text("tickedify.sid=s%3Aabc; Max-Age=99999999999999999999999"),
            text("tickedify.sid=s%3Aabc; Max-Age=nan\ntickedify.sid=x; Max-Age=-inf"),
            text("Date: Mon, 01 Jan 0001 00:00:00 GMT\ntickedify.sid=x; Expires=Fri, 31 Dec 9999 23:59:59 GMT"),
            text("tickedify.sid=x; Expires=Fri, 31 Dec 9999 23:59:59 GMT"),
            text("tickedify.sid="), text("tickedify.sid=;;;;=;Max-Age="),
            // Tokens whose payload is hostile JSON (`exp` far away, not a number, nested).
            text("{\"access_token\":\"a.eyJleHAiOjFlMzA4LCJpYXQiOi0xZTMwOH0.c\",\"refresh_token\":\"r\"}"),
            text("{\"access_token\":\"a.eyJleHAiOiJ4In0.c\",\"refresh_token\":\"r\"}"),
            text("{\"access_token\":\"a.W1tbW1tbW1tbW11dXV1dXV1dXV1d.c\"}"),
            text("{\"access_token\":\"...\"}"),
        ]
        bodies.append(Array(repeating: 0, count: 4096))
        return bodies
    }()

    @Test(arguments: answerReaderNames)
    func hostileBodiesAreRefusedWithoutATrap(_ name: String) throws {
        let reader = try #require(Self.readers.first { $0.name == name })
        for zone in Self.zones {
            for body in Self.hostileBodies {
                reader.read(body, zone)
            }
        }
    }

    /// What a field of a seed answer is replaced with: other types, limits, text that is
    /// almost a number or a time, and nothing.
    static let hostileValues: [JSONValue] = [
        .null, .bool(true), .int(0), .int(-1), .int(Int.max), .int(Int.min), .double(1.0e308), .double(-1.0e308),
        .double(.leastNonzeroMagnitude), .double(0.5), .string(""), .string(String(repeating: "é", count: 2_000)),
        .string("NaN"), .string("-Infinity"), .string("1e400"), .string("9223372036854775808"),
        .string("0000-01-01T00:00:00Z"), .string("9999-12-31T23:59:59.999999999+23:59"),
        .string("2026-02-30T24:60:61-99:99"), .string("2026-11-23"), .string("\u{0}\r\n\u{1B}[0m\u{202E}"),
        .array([]), .array([.null, .int(Int.max), .string("")]), .object([:]),
    ]

    /// Every value in `value` (containers too), with the path to it.
    static func paths(in value: JSONValue, at path: [JSONPathStep] = []) -> [[JSONPathStep]] {
        var found = [path]
        switch value {
        case .array(let items):
            for (index, item) in items.enumerated() { found += paths(in: item, at: path + [.index(index)]) }
        case .object(let object):
            for (key, field) in object { found += paths(in: field, at: path + [.key(key)]) }
        default:
            break
        }
        return found
    }

    enum JSONPathStep: Hashable {
        case index(Int)
        case key(String)
    }

    /// `value` with every list cut to its first `rows`.
    static func trimmed(_ value: JSONValue, rows: Int = 3) -> JSONValue {
        switch value {
        case .array(let items): .array(items.prefix(rows).map { trimmed($0, rows: rows) })
        case .object(let object): .object(JSONObject(fields: object.fields.map { ($0.0, trimmed($0.1, rows: rows)) }))
        default: value
        }
    }

    /// `value` with the value at `path` replaced by `replacement`.
    static func replacing(_ path: ArraySlice<JSONPathStep>, in value: JSONValue, with replacement: JSONValue)
        -> JSONValue
    {
        guard let step = path.first else { return replacement }
        switch (step, value) {
        case (.index(let index), .array(var items)):
            items[index] = replacing(path.dropFirst(), in: items[index], with: replacement)
            return .array(items)
        case (.key(let key), .object(var object)):
            object[key] = replacing(path.dropFirst(), in: object[key] ?? .null, with: replacement)
            return .object(object)
        default:
            return value
        }
    }

    @Test(arguments: answerReaderNames)
    func everyFieldOfTheSeedsMadeHostile(_ name: String) throws {
        let reader = try #require(Self.readers.first { $0.name == name })
        let zone = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        // The first seed of each reader, at most 40 of its lines and 60 of its fields: every kind
        // of field is there, at a cost that keeps the parallel unit tests on two cores in seconds;
        // the fuzzer goes further.
        for seed in Self.seeds(name).prefix(1) {
            reader.read(seed, zone)
            guard let parsed = JSONValue.parse(seed) else {
                // A text answer (a cookie, a feed): cut short at every line, and every line dropped.
                let lines = seed.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                for index in stride(from: 0, to: lines.count, by: max(1, lines.count / 40)) {
                    reader.read(Array(lines[..<index].joined(separator: [UInt8(ascii: "\n")])), zone)
                    var rest = lines
                    rest.remove(at: index)
                    reader.read(Array(rest.joined(separator: [UInt8(ascii: "\n")])), zone)
                }
                continue
            }
            // Lists cut to their first three rows: every kind of field is there, at a bounded cost.
            let value = Self.trimmed(parsed)
            for path in Self.paths(in: value).prefix(60) {
                for replacement in Self.hostileValues {
                    let hostile = Self.replacing(path[...], in: value, with: replacement)
                    reader.read(Array(hostile.serialized.utf8), zone)
                }
            }
        }
    }
}
