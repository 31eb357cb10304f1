import Aggregation
import Testing

@testable import Gateway

/// A list-valued field's members, with spaces and tabs around them taken off.
struct HTTPFieldListTests {
    @Test func membersLoseTheWhiteSpaceAroundThem() {
        #expect(HTTPFieldList.members(" no-cache ,\tmax-age=0\t, ,x") == ["no-cache", "max-age=0", "", "x"])
        #expect(HTTPFieldList.members("") == [""])
        #expect(HTTPFieldList.members("\"a b\"") == ["\"a b\""], "space inside a member stays")
        #expect(HTTPFieldList.members(" \t ") == [""])
    }

    @Test func aConditionMatchesAnyOfItsTagsWeaklyCompared() {
        #expect(AggregateAnswer.matches(#" "x", W/"abc" "#, etag: #""abc""#))
        #expect(AggregateAnswer.matches("\t*", etag: #""abc""#))
        #expect(!AggregateAnswer.matches(#""abcd", "ab""#, etag: #""abc""#))
    }
}
