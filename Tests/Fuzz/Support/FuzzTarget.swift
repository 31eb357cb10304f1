import Foundation

/// One untrusted input the fuzzers feed: a name (`DAYGATE_FUZZ_TARGET`, its corpus folder) and
/// what the gateway does with such bytes. `run` returns normally for any input; a broken
/// invariant is a `fatalError`, which libFuzzer (and the replay) reports as a crash with the
/// input that caused it.
public struct FuzzTarget: Sendable {
    public let name: String
    public let run: @Sendable ([UInt8]) -> Void
    /// The inputs a corpus folder of this target holds, with where each came from: by default
    /// every file in it, as it is.
    public var seeds: @Sendable (URL) -> [(String, [UInt8])] = { folder in
        FuzzTarget.files(in: folder).compactMap { file in
            (try? [UInt8](Data(contentsOf: file))).map { (file.path, $0) }
        }
    }

    public init(
        name: String, run: @escaping @Sendable ([UInt8]) -> Void,
        seeds: (@Sendable (URL) -> [(String, [UInt8])])? = nil
    ) {
        self.name = name
        self.run = run
        if let seeds { self.seeds = seeds }
    }

    /// The regular files under `folder` (not README.md), sorted.
    public static func files(in folder: URL) -> [URL] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var found: [URL] = []
        for case let file as URL in walk
        where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            && file.lastPathComponent != "README.md"
        {
            found.append(file)
        }
        return found.sorted { $0.path < $1.path }
    }
}

/// A broken invariant: stops the run with the target's name and what held not.
public func invariant(_ holds: Bool, _ message: @autoclosure () -> String, target: String) {
    if !holds { fatalError("[\(target)] \(message())") }
}
