import Backends
import Foundation
import Model
import Synchronization

/// The config a gateway serves and how its last reload went: what `/readyz` reports under
/// `config`.
public struct ConfigStatus: Sendable {
    /// The config file, when the gateway was started from one.
    public var file: String?
    /// When the config now serving was read.
    public var loadedAt: Date
    /// 1 at start, one more with each reload that took effect.
    public var generation: Int
    public var lastReload: ReloadOutcome?
    /// Settings the file changed that wait for a restart.
    public var restartRequired: [ConfigReloadPlan.RestartOnly]

    public init(
        file: String?, loadedAt: Date, generation: Int = 1, lastReload: ReloadOutcome? = nil,
        restartRequired: [ConfigReloadPlan.RestartOnly] = []
    ) {
        self.file = file
        self.loadedAt = loadedAt
        self.generation = generation
        self.lastReload = lastReload
        self.restartRequired = restartRequired
    }
}

/// What one reload came to.
public struct ReloadOutcome: Sendable {
    public enum Result: String, Sendable {
        /// The new config and routes serve new requests.
        case applied
        /// Something was wrong; the config that served before serves on.
        case failed
    }

    /// A mistake in the new config or a route file, where it is.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var file: String?
        public var line: Int?
        /// The key path (`profiles.default.fitiq.base_url`), when known.
        public var key: String?
        public var message: String

        public init(file: String?, line: Int?, key: String?, message: String) {
            self.file = file
            self.line = line
            self.key = key
            self.message = message
        }

        init(_ error: YAMLSourceError) {
            self.init(
                file: error.file, line: error.line, key: error.keyPath.isEmpty ? nil : error.keyPath,
                message: error.reason)
        }

        public var description: String {
            var text = file ?? "config"
            if let line { text += ":\(line)" }
            if let key { text += ": \(key)" }
            return text + ": " + message
        }
    }

    public var at: Date
    public var result: Result
    /// Why it failed (empty when applied).
    public var problems: [Problem]
    /// What changed (`ConfigReloadPlan`): backend sections, other settings, routes.
    public var changes: [String]
    public var restartRequired: [ConfigReloadPlan.RestartOnly]

    public init(
        at: Date, result: Result, problems: [Problem] = [], changes: [String] = [],
        restartRequired: [ConfigReloadPlan.RestartOnly] = []
    ) {
        self.at = at
        self.result = result
        self.problems = problems
        self.changes = changes
        self.restartRequired = restartRequired
    }
}

/// The status shared by the gateway and the `/readyz` handlers of every router it builds.
final class ConfigStatusBox: Sendable {
    private let value: Mutex<ConfigStatus>

    init(_ status: ConfigStatus) {
        value = Mutex(status)
    }

    var status: ConfigStatus { value.withLock { $0 } }

    func update(_ change: (inout ConfigStatus) -> Void) {
        value.withLock { change(&$0) }
    }
}

/// `/readyz`'s `config` object.
struct ConfigReport: Encodable {
    struct Reload: Encodable {
        var at: String
        var result: String
        var errors: [Problem]
        var changes: [String]
    }

    struct Problem: Encodable {
        @Nullable var file: String?
        @Nullable var line: Int?
        @Nullable var key: String?
        var message: String
    }

    struct Pending: Encodable {
        var setting: String
        var running: String
        var configured: String
    }

    @Nullable var file: String?
    var loadedAt: String
    var generation: Int
    @Nullable var lastReload: Reload?
    var restartRequired: [Pending]

    enum CodingKeys: String, CodingKey {
        case file
        case loadedAt = "loaded_at"
        case generation
        case lastReload = "last_reload"
        case restartRequired = "restart_required"
    }

    /// Times in the household's zone; messages pass the redactor (a config error may quote a
    /// value).
    init(_ status: ConfigStatus, zone: TimeZone, redactor: SecretRedactor) {
        file = status.file
        loadedAt = LenientDate.format(status.loadedAt, in: zone)
        generation = status.generation
        lastReload = status.lastReload.map { outcome in
            Reload(
                at: LenientDate.format(outcome.at, in: zone), result: outcome.result.rawValue,
                errors: outcome.problems.map {
                    Problem(file: $0.file, line: $0.line, key: $0.key, message: redactor.redact(text: $0.message))
                },
                changes: outcome.changes
            )
        }
        restartRequired = status.restartRequired.map {
            Pending(setting: $0.setting, running: $0.running, configured: $0.configured)
        }
    }
}

extension SecretRedactor {
    /// `text` with the configured secrets and anything shaped like a credential replaced.
    func redact(text: String) -> String {
        Self.scrubPatterns(String(decoding: redact(Data(text.utf8)), as: UTF8.self))
    }
}
