/// A connect flow that cannot go on, in a sentence a person understands (never a secret).
public struct ConnectError: Error, CustomStringConvertible, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
