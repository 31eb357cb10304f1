import ArgumentParser
import Foundation

/// `--timezone NAME`: the household's IANA zone; the machine's when left out.
struct TimeZoneOption: ParsableArguments {
    @Option(name: .long, help: "IANA timezone of the household (default: this machine's).")
    var timezone: String?

    func zone() throws -> TimeZone {
        let name = timezone ?? TimeZone.current.identifier
        guard let zone = TimeZone(identifier: name) else {
            throw ValidationError("--timezone: unknown IANA timezone \(name)")
        }
        return zone
    }
}
