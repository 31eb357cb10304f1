import Foundation
import FuzzSupport

/// Every target, in the order `make fuzz` runs them.
let everyTarget: [FuzzTarget] = [
    CalendarFuzzTarget.target, ConfigFuzzTarget.target, RoutesFuzzTarget.target, RequestHeadFuzzTarget.target,
    AnswersFuzzTarget.target, JSONFuzzTarget.target,
]

#if LIBFUZZER
    /// SwiftPM links an executable's entry point as `<module>_main`; here it hands over to
    /// libFuzzer's driver.
    @_cdecl("daygate_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        FuzzCommand.runLibFuzzer(targets: everyTarget, argc: argc, argv: argv)
    }
#else
    /// `daygate-fuzz replay DIR…` and `daygate-fuzz seeds DIR TARGET OUT` (`FuzzCommand`).
    @main
    enum FuzzEntry {
        static func main() throws {
            try FuzzCommand.run(targets: everyTarget)
        }
    }
#endif
