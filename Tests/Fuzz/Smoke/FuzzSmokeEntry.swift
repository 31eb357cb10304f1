import Foundation
import FuzzSupport

/// The targets whose code builds without any package (ModelCore, CalendarReader): a calendar
/// feed and any bytes as JSON. Their libFuzzer build takes about a minute on two cores, so
/// `make test` fuzzes them for a short while (`make fuzz-smoke`); `daygate-fuzz` has every target.
let smokeTargets: [FuzzTarget] = [CalendarFuzzTarget.target, JSONFuzzTarget.target]

#if LIBFUZZER
    /// SwiftPM links an executable's entry point as `<module>_main`; here it hands over to
    /// libFuzzer's driver.
    @_cdecl("daygate_fuzz_smoke_main")
    public func fuzzSmokeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        FuzzCommand.runLibFuzzer(targets: smokeTargets, argc: argc, argv: argv)
    }
#else
    /// `daygate-fuzz-smoke replay DIR…` and `daygate-fuzz-smoke seeds DIR TARGET OUT`.
    @main
    enum FuzzSmokeEntry {
        static func main() throws {
            try FuzzCommand.run(targets: smokeTargets)
        }
    }
#endif
