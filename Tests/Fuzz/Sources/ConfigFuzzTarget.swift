import Backends
import Foundation
import FuzzSupport
import Model

/// A config file, as `daygate serve`, SIGHUP and `daygate check` read it, with every backend's
/// section. The text holds secrets (`Secret` markers below are planted by the seeds; any other
/// value the fuzzer makes counts the same), and an error, however the file is broken, names the
/// problem and the line but never repeats the file: no line of the input longer than a few
/// characters may appear in the message.
enum ConfigFuzzTarget {
    static let target = FuzzTarget(name: "config") { bytes in
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let document = YAMLDocument(file: "/fuzz/daygate.yaml", environment: [:], backends: BackendCatalog.settings)
        do {
            _ = try document.decode(DaygateConfig.self, from: text)
        } catch {
            let message = "\(error)"
            for secret in plantedSecrets(in: text) {
                invariant(!message.contains(secret), "the error repeats a secret: \(message)", target: "config")
            }
        }
    }

    /// The values of keys that hold secrets (`key:`, `password:`, `token:`, `feed_key:`,
    /// `refresh_token:`, `api_key:`, `url:` of a calendar) that are long enough to be one.
    static func plantedSecrets(in text: String) -> [String] {
        let names = ["key", "password", "token", "feed_key", "refresh_token", "api_key", "access_token", "link"]
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let name = parts[0].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "- "))
            guard names.contains(name) else { return nil }
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\"'"))
            return value.count >= 12 && !value.hasPrefix("${") ? value : nil
        }
    }
}
