import Foundation
import Synchronization

/// What a fuzz executable does with its targets (`daygate-fuzz` has every target,
/// `daygate-fuzz-smoke` the ones that build without the networking stack).
///
/// As a libFuzzer binary (`LIBFUZZER`) it runs the target `DAYGATE_FUZZ_TARGET` names
/// (``runLibFuzzer(targets:argc:argv:)``). Otherwise it has two commands (``run(targets:)``):
/// - `replay DIR…` runs every input under each `DIR/<target>/` through its target (the
///   committed seeds and the inputs that once crashed), so the ordinary test build checks them
///   on every run; prints "fuzz-replay: N passed, 0 failed", and a broken invariant stops it
///   after naming the input.
/// - `seeds DIR TARGET OUT` writes the inputs of `DIR/TARGET/` into `OUT` as libFuzzer takes
///   them (for the answers target, with the reader's byte in front).
public enum FuzzCommand {
    public static func run(targets: [FuzzTarget]) throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "replay" where arguments.count > 1:
            replay(targets: targets, roots: Array(arguments.dropFirst()))
        case "seeds" where arguments.count == 4:
            guard let target = targets.first(where: { $0.name == arguments[2] }) else { usage(targets) }
            try FileManager.default.createDirectory(atPath: arguments[3], withIntermediateDirectories: true)
            let inputs = target.seeds(URL(fileURLWithPath: arguments[1]).appendingPathComponent(target.name))
            for (index, input) in inputs.enumerated() {
                try Data(input.1).write(to: URL(fileURLWithPath: arguments[3]).appendingPathComponent("seed-\(index)"))
            }
            print("\(target.name): \(inputs.count) seeds")
        default:
            usage(targets)
        }
    }

    static func usage(_ targets: [FuzzTarget]) -> Never {
        print("usage: \(CommandLine.arguments.first ?? "daygate-fuzz") replay DIR…  |  … seeds DIR TARGET OUT")
        print("targets: \(targets.map(\.name).joined(separator: ", "))")
        exit(2)
    }

    static func replay(targets: [FuzzTarget], roots: [String]) {
        var perTarget: [String: Int] = [:]
        for root in roots {
            for target in targets {
                for (path, input) in target.seeds(URL(fileURLWithPath: root).appendingPathComponent(target.name)) {
                    // Named before it runs, so a crash says which input it was.
                    FileHandle.standardError.write(Data("\(path)\n".utf8))
                    target.run(input)
                    perTarget[target.name, default: 0] += 1
                }
            }
        }
        print("replayed: " + targets.map { "\($0.name) \(perTarget[$0.name] ?? 0)" }.joined(separator: ", "))
        let count = perTarget.values.reduce(0, +)
        guard count > 0 else {
            print("fuzz-replay: 0 passed, 1 failed (no input found)")
            exit(1)
        }
        print("fuzz-replay: \(count) passed, 0 failed")
    }
}

#if LIBFUZZER
    /// The target this libFuzzer binary runs, chosen once before the driver starts.
    private let selected = Mutex<FuzzTarget?>(nil)

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        selected.withLock { $0 }?.run(bytes)
        return 0
    }

    /// libFuzzer's own driver (its `main` does the same).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    extension FuzzCommand {
        /// Hands over to libFuzzer's driver with the target `DAYGATE_FUZZ_TARGET` names.
        public static func runLibFuzzer(
            targets: [FuzzTarget], argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> CInt {
            let name = ProcessInfo.processInfo.environment["DAYGATE_FUZZ_TARGET"] ?? ""
            guard let target = targets.first(where: { $0.name == name }) else {
                fatalError("set DAYGATE_FUZZ_TARGET to one of: \(targets.map(\.name).joined(separator: ", "))")
            }
            selected.withLock { $0 = target }
            var count = argc
            var arguments = argv
            return runDriver(&count, &arguments) { start, size in fuzzOneInput(start, size) }
        }
    }
#endif
