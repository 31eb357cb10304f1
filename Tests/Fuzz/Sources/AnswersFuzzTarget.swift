import Backends
import Foundation
import FuzzSupport

/// A backend's answer body, read as its client reads it: every reader every backend declares
/// (`Backend.answerReaders`), so a new backend is fuzzed without a line here. The first byte
/// picks the reader (and the zone); the rest is the body. The corpus has a folder per reader
/// (`answers/<reader name>/`) of plain bodies, to which `seeds` puts the reader's byte in
/// front; a file directly in `answers/` (an input a fuzzer found) is taken as it is.
enum AnswersFuzzTarget {
    static let readers = BackendCatalog.all.flatMap(\.answerReaders)
    static let zones = ["Europe/Amsterdam", "America/New_York", "Pacific/Auckland"].compactMap {
        TimeZone(identifier: $0)
    }

    static let target = FuzzTarget(
        name: "answers",
        run: { bytes in
            guard let first = bytes.first, !readers.isEmpty else { return }
            let reader = readers[Int(first) % readers.count]
            reader.read(Array(bytes.dropFirst()), zones[Int(first) / readers.count % zones.count])
        },
        seeds: { folder in
            var inputs: [(String, [UInt8])] = FuzzTarget.files(in: folder).compactMap { file in
                guard file.deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL else {
                    return nil
                }
                return (try? [UInt8](Data(contentsOf: file))).map { (file.path, $0) }
            }
            for (index, reader) in readers.enumerated() where index < 256 {
                let files = FuzzTarget.files(in: folder.appendingPathComponent(reader.name))
                for file in files {
                    guard let body = try? [UInt8](Data(contentsOf: file)) else { continue }
                    inputs.append((file.path, [UInt8(index)] + body))
                }
            }
            return inputs
        })
}
