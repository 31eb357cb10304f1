import Foundation

#if LIBFUZZER
    /// The target this libFuzzer binary runs: `DAYGATE_FUZZ_TARGET`, read once.
    private let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["DAYGATE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget.named(name) else {
            fatalError("set DAYGATE_FUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        selected.run(bytes)
        return 0
    }

    /// libFuzzer's own driver (its `main` does the same).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable's entry point as `<module>_main`; here it hands over to
    /// libFuzzer's driver.
    @_cdecl("daygate_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runDriver(&count, &arguments) { start, size in fuzzOneInput(start, size) }
    }
#else
    /// Without libFuzzer, two commands:
    /// - `daygate-fuzz replay DIR…` runs every input under each `DIR/<target>/` through its
    ///   target (the committed seeds and the inputs that once crashed), so the ordinary test
    ///   build checks them on every run; prints "fuzz-replay: N passed, 0 failed", and a broken
    ///   invariant stops it after naming the input.
    /// - `daygate-fuzz seeds DIR TARGET OUT` writes the inputs of `DIR/TARGET/` into `OUT` as
    ///   libFuzzer takes them (for the answers target, with the reader's byte in front).
    @main
    enum FuzzCommand {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            switch arguments.first {
            case "replay" where arguments.count > 1:
                replay(roots: Array(arguments.dropFirst()))
            case "seeds" where arguments.count == 4:
                guard let target = FuzzTarget.named(arguments[2]) else { usage() }
                try FileManager.default.createDirectory(atPath: arguments[3], withIntermediateDirectories: true)
                let inputs = target.seeds(URL(fileURLWithPath: arguments[1]).appendingPathComponent(target.name))
                for (index, input) in inputs.enumerated() {
                    try Data(input.1).write(
                        to: URL(fileURLWithPath: arguments[3]).appendingPathComponent("seed-\(index)"))
                }
                print("\(target.name): \(inputs.count) seeds")
            default:
                usage()
            }
        }

        static func usage() -> Never {
            print("usage: daygate-fuzz replay DIR…  |  daygate-fuzz seeds DIR TARGET OUT")
            print("targets: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
            exit(2)
        }

        static func replay(roots: [String]) {
            var perTarget: [String: Int] = [:]
            for root in roots {
                for target in FuzzTarget.all {
                    for (path, input) in target.seeds(URL(fileURLWithPath: root).appendingPathComponent(target.name)) {
                        // Named before it runs, so a crash says which input it was.
                        FileHandle.standardError.write(Data("\(path)\n".utf8))
                        target.run(input)
                        perTarget[target.name, default: 0] += 1
                    }
                }
            }
            print("replayed: " + FuzzTarget.all.map { "\($0.name) \(perTarget[$0.name] ?? 0)" }.joined(separator: ", "))
            let count = perTarget.values.reduce(0, +)
            guard count > 0 else {
                print("fuzz-replay: 0 passed, 1 failed (no input found)")
                exit(1)
            }
            print("fuzz-replay: \(count) passed, 0 failed")
        }
    }
#endif
