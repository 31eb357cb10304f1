import Hummingbird
import NIOCore

extension Response {
    /// This answer with `hostile` as its body: a fixed one in place of its own, its own body
    /// trickled (`slow`), or a body that never ends (`endless`).
    func carrying(_ hostile: HostileBody) -> Response {
        var response = self
        switch hostile {
        case .quadratic, .huge, .invalid:
            let bytes = Self.buffers[hostile] ?? ByteBuffer()
            response.headers[.contentLength] = nil
            response.body = ResponseBody(byteBuffer: bytes)
        case .slow:
            let body = self.body
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                try await body.write(TricklingWriter(parent: writer))
            }
        case .endless:
            response.headers[.contentLength] = nil
            response.headers[.contentType] = "application/json"
            response.body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "["))
                let chunk = ByteBuffer(string: String(repeating: "0,", count: 2048))
                while !Task.isCancelled {
                    try await writer.write(chunk)
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
        }
        return response
    }
}

extension Response {
    /// The fixed hostile bodies as buffers, made once (a ByteBuffer is shared, not copied).
    fileprivate static let buffers: [HostileBody: ByteBuffer] = Dictionary(
        uniqueKeysWithValues: HostileBody.allCases.compactMap { body in body.bytes.map { (body, ByteBuffer(bytes: $0)) }
        })
}

/// Writes what it is given 16 bytes at a time, 200 ms apart.
struct TricklingWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        while let slice = buffer.readSlice(length: min(16, buffer.readableBytes)), slice.readableBytes > 0 {
            try await parent.write(slice)
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }
}
