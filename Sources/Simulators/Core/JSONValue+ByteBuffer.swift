import Model
import NIOCore

extension JSONValue {
    /// ``serialized`` as a response body.
    var bytes: ByteBuffer { ByteBuffer(string: serialized) }
}
