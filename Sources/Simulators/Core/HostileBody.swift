import Foundation
import NIOCore

/// Bodies made to cost whoever reads them, for the liveness harness and the gateway's tests of
/// its bounds (`/_sim/faults` `hostile_body`). None of them is something a real backend was seen
/// to send; each is the worst case of something ordinary: a long error message, a large page,
/// a slow or broken connection.
public enum HostileBody: String, Codable, Sendable, CaseIterable {
    /// `{"detail":"a.a.a.…"}`, 16 KB: bait for a scanner whose cost grows with the square of the
    /// length (a regular expression that backtracks over the whole message at every start).
    case quadratic
    /// 4 MB of `%`: every byte the start of an escape a redactor tries to read.
    case huge
    /// Bytes that are neither UTF-8 nor JSON (`0xFF 0xFE`, a lone quote, NULs), 64 KB.
    case invalid
    /// The ordinary answer, 16 bytes every 200 ms: a backend on a bad link.
    case slow
    /// `[` then `0,` for ever, 4 KB every 10 ms, until the reader hangs up.
    case endless

    /// The body when it is a fixed one (nil for `slow` and `endless`, which are streamed);
    /// made once, so that sending it costs the simulator little.
    public var bytes: [UInt8]? {
        switch self {
        case .quadratic: Self.made.quadratic
        case .huge: Self.made.huge
        case .invalid: Self.made.invalid
        case .slow, .endless: nil
        }
    }

    private static let made = (
        quadratic: HostileBody.quadratic.make() ?? [], huge: HostileBody.huge.make() ?? [],
        invalid: HostileBody.invalid.make() ?? []
    )

    private func make() -> [UInt8]? {
        switch self {
        case .quadratic:
            let dots = String(repeating: "a.", count: 8_000)
            return Array(#"{"detail": "\#(dots)"}"#.utf8)
        case .huge:
            return [UInt8](repeating: UInt8(ascii: "%"), count: 4 * 1_048_576)
        case .invalid:
            let pattern: [UInt8] = [0xFF, 0xFE, 0x22, 0x00, 0x7B, 0xC3, 0x28, 0x5C]
            return (0..<(64 * 1024)).map { pattern[$0 % pattern.count] }
        case .slow, .endless:
            return nil
        }
    }
}
