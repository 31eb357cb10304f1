import Foundation
import Model
import Testing

/// The one JSON value of the gateway and the simulators.
@Suite("JSON value")
struct JSONValueTests {
    @Test func numbersCompareByValueButKeepTheirKind() throws {
        #expect(JSONValue.int(2) == .double(2))
        #expect(JSONValue.int(2).hashValue == JSONValue.double(2).hashValue)
        #expect(JSONValue.number(2) == .int(2))
        if case .int = JSONValue.number(2) {} else { Issue.record("a whole number is an int") }
        if case .double = JSONValue.number(2.5) {} else { Issue.record("a fraction is a double") }
        #expect(JSONValue.int(2).serialized == "2")
        #expect(JSONValue.double(2).serialized == "2.0", "FastAPI writes a float field as 2.0")
        #expect(JSONValue.double(2.5).serialized == "2.5")
        let decoded = try #require(JSONValue.parse(Array(#"{"a":3,"b":3.25}"#.utf8)))
        #expect(decoded["a"] == .int(3))
        if case .int = decoded["a"] {} else { Issue.record("3 decodes as an int") }
        #expect(decoded["b"] == .double(3.25))
    }

    @Test func objectsKeepTheirOrderForWritingAndIgnoreItForComparing() throws {
        let object: JSONObject = ["z": .int(1), "a": .string("x\"y"), "m": .null]
        #expect(JSONValue.object(object).serialized == #"{"z":1,"a":"x\"y","m":null}"#)
        let reordered: JSONObject = ["a": .string("x\"y"), "m": .null, "z": .int(1)]
        #expect(object == reordered)
        #expect(object.hashValue == reordered.hashValue)
        let encoded = String(decoding: try JSONCoding.encode(JSONValue.object(object)), as: UTF8.self)
        #expect(encoded == #"{"a":"x\"y","m":null,"z":1}"#, "the gateway's codec sorts keys")
    }

    @Test func aRepeatedKeyReadsAsTheLastAndSettingReplacesIt() {
        var object = JSONObject(fields: [("k", .int(1)), ("other", .bool(true)), ("k", .int(2))])
        #expect(object["k"] == .int(2))
        #expect(object.keys == ["k", "other"])
        #expect(object.count == 2)
        object["k"] = .int(3)
        #expect(object.fields.count == 2)
        #expect(JSONValue.object(object).serialized == #"{"k":3,"other":true}"#)
        object["k"] = nil
        #expect(object.keys == ["other"])
        object["new"] = .string("x")
        #expect(object.keys == ["other", "new"])
    }
}
