import Foundation
import Model
import SeededRandom
import Testing

/// Times are written into bytes (`Civil.appendISO`, `LenientDate.format`); the text is the
/// one padded strings made, compared here with that way of writing it on generated times.
struct CivilTextTests {
    /// The way `isoString` was written before it wrote bytes.
    static func referenceISO(_ micros: Int64) -> String {
        let days = micros >= 0 ? micros / Civil.microsPerDay : (micros - Civil.microsPerDay + 1) / Civil.microsPerDay
        let rest = micros - days * Civil.microsPerDay
        let (y, m, d) = Civil.date(fromDays: Int(days))
        let secs = rest / Civil.microsPerSecond
        let frac = rest % Civil.microsPerSecond
        var s = "\(Civil.pad(y, 4))-\(Civil.pad(m, 2))-\(Civil.pad(d, 2))"
        s += "T\(Civil.pad(Int(secs / 3600), 2)):\(Civil.pad(Int(secs / 60 % 60), 2)):\(Civil.pad(Int(secs % 60), 2))"
        if frac != 0 { s += "." + Civil.pad(Int(frac), 6) }
        return s
    }

    @Test func isoStringsAreThePaddedOnes() {
        var rng = SplitMix64(seed: 0x150_57)
        // Year -200 to 9999, to the microsecond; every fifth a whole second.
        let span = Civil.micros(year: 9999, month: 12, day: 31) - Civil.micros(year: -200, month: 1, day: 1)
        for index in 0..<20_000 {
            var micros = Civil.micros(year: -200, month: 1, day: 1) + Int64(rng.next() % UInt64(span))
            if index % 5 == 0 { micros -= micros % Civil.microsPerSecond }
            #expect(Civil.isoString(micros) == Self.referenceISO(micros), "\(micros)")
        }
    }

    @Test func paddedNumbersAreThePaddedStrings() {
        for value in [0, 5, 9, 10, 99, 100, 12345, 1_000_000, -5, -123] {
            for width in [1, 2, 4, 6] {
                var bytes: [UInt8] = []
                Civil.appendPadded(value, width, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == Civil.pad(value, width), "\(value) \(width)")
            }
        }
    }

    @Test func formattedTimesCarryTheZonesOffset() {
        let zones = ["UTC", "Europe/Amsterdam", "America/St_Johns", "Asia/Kathmandu", "Pacific/Pago_Pago"].map {
            TimeZone(identifier: $0)!
        }
        var rng = SplitMix64(seed: 0xF0_4A7)
        for _ in 0..<5_000 {
            let zone = rng.pick(zones)
            let seconds = Double(rng.next() % 4_000_000_000_000) / 1000
            let date = Date(timeIntervalSince1970: seconds)
            let offset = zone.secondsFromGMT(for: date)
            let whole = seconds.rounded(.down)
            var expected = Self.referenceISO((Int64(whole) + Int64(offset)) * Civil.microsPerSecond)
            let micros = Int(((seconds - whole) * 1_000_000).rounded())
            if micros > 0, micros < 1_000_000 { expected += "." + Civil.pad(micros, 6) }
            let magnitude = abs(offset)
            expected +=
                offset == 0
                ? "Z"
                : (offset < 0 ? "-" : "+") + Civil.pad(magnitude / 3600, 2) + ":" + Civil.pad(magnitude % 3600 / 60, 2)
            #expect(LenientDate.format(date, in: zone) == expected, "\(seconds) \(zone)")
        }
    }
}
