/// An optional that is written as `null` when absent. Swift's synthesized `Encodable` leaves
/// an absent optional's key out; answers made for templates and schemas (Home Assistant,
/// /v1/sources) keep every key so a consumer never meets a missing one.
@propertyWrapper
public struct Nullable<Value: Encodable & Sendable>: Encodable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}
