import ArgumentParser
import Backends
import Foundation
import Model

/// What `daygate init` writes (pure, so the tests load its text).
struct InitPlan {
    var backends: [any BackendConnector]
    var listen: ListenAddress
    var email: String
    var timeZone: TimeZone
    /// A fresh client key when the address is not loopback.
    var clientKey: String?

    init(backends names: [String], listen: String, email: String, timeZone: TimeZone) throws {
        var picked: [any BackendConnector] = []
        for name in names.flatMap({ $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }) {
            guard let connector = BackendCatalog.connectors.first(where: { $0.backend == name }) else {
                throw ValidationError(
                    "--backend \(name): one of \(BackendCatalog.connectors.map(\.backend).joined(separator: ", "))")
            }
            if !picked.contains(where: { $0.backend == name }) { picked.append(connector) }
        }
        guard let address = ListenAddress(parsing: listen) else {
            throw ValidationError("--listen: expected HOST:PORT such as 127.0.0.1:8787")
        }
        self.backends = picked
        self.listen = address
        self.email = email
        self.timeZone = timeZone
        self.clientKey = Self.isLoopback(address.host) ? nil : Self.newKey()
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    var text: String {
        var lines = [
            "# daygate.yaml — written by `daygate init`. Check it with: daygate check --config <this file>",
            "# Any value may be ${ENV_VAR} or ${file:/path/to/secret}. Relative paths are relative to",
            "# this file. Unknown keys are errors. This file is readable by its owner only (0600).",
            "",
            "listen: \(listen.host.contains(":") ? "\"[\(listen.host)]:\(listen.port)\"" : "\(listen.host):\(listen.port)")",
            "state_dir: state                # the cache and the credential vault (`daygate connect` writes there)",
            "timezone: \(timeZone.identifier)         # decides what \"today\" is",
        ]
        if let clientKey {
            lines += [
                "",
                "# The gateway listens beyond loopback, so every request needs a client key:",
                "# Authorization: Bearer <key>. This one was generated for you; give it to the household's",
                "# devices (or move it to a file and write key: ${file:/path/to/key}).",
                "clients:",
                "  - name: household",
                "    key: \(clientKey)",
                "    profile: default",
            ]
        }
        lines += ["", "profiles:", "  default:"]
        if backends.isEmpty {
            lines.append("    {}                          # add backend sections here (see docs/connect.md)")
        }
        for connector in backends {
            lines += connector.starterSection(email: email).map { "    " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the file 0600 from its first byte (`PrivateFile`); refuses to replace one unless
    /// `force`.
    func write(to path: String, force: Bool, observe: (PrivateFile.Step, String) -> Void = { _, _ in }) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: path), !force {
            throw Self.exists(path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            try PrivateFile.write(Data(text.utf8), to: path, replacing: force, observe: observe)
        } catch is PrivateFile.Exists {
            throw Self.exists(path)
        } catch {
            throw FailureMessage(text: "cannot write \(path): \(error)")
        }
    }

    static func exists(_ path: String) -> FailureMessage {
        FailureMessage(text: "\(path) exists; daygate init does not overwrite it (use --force to replace it)")
    }

    func nextSteps(configPath: String) -> String {
        var lines = ["Wrote \(configPath) (mode 0600). Next:"]
        for connector in backends {
            lines += connector.nextSteps(configPath: configPath).map { "  " + $0 }
        }
        lines.append("  daygate check --config \(configPath)")
        lines.append("  daygate serve --config \(configPath)")
        if clientKey != nil {
            lines.append("Requests need the client key written under `clients:` in the config.")
        }
        return lines.joined(separator: "\n")
    }
}
