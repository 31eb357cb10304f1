import Foundation
import Model

/// What a reload does with a newly read config, decided without I/O: which config takes
/// effect (the new one, except for what only a restart can change), which accounts' sessions
/// and cached entries must go, what changed, and whether the new config is refused outright.
///
/// - `listen`, `state_dir`, every `limits` key and `cache.max_size` / `cache.memory_size` are
///   fixed while the process runs (the listening socket, the open database, the connection
///   budget, the HTTP client's pools and the cache's memory tier are made once): the running
///   values stay in force and each difference is reported as needing a restart.
/// - A backend section of a profile that was added, removed or changed in any way (its base
///   URL, its account, its password — compared with secrets revealed, in memory only) is a
///   changed account: its sessions are forgotten and its cached entries dropped, so nothing
///   fetched with the old settings is served under the new ones.
/// - Anything else (timezone, clients, CORS, allowed hosts, TTLs, routes and static folders)
///   takes effect for new requests.
public struct ConfigReloadPlan: Sendable {
    /// A backend section of a profile that is not what it was.
    public struct SectionChange: Sendable, Hashable, Comparable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            case added, changed, removed
        }

        public var profile: String
        public var backend: String
        public var kind: Kind

        public init(profile: String, backend: String, kind: Kind) {
            self.profile = profile
            self.backend = backend
            self.kind = kind
        }

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.profile, lhs.backend) < (rhs.profile, rhs.backend)
        }

        public var description: String { "profiles.\(profile).\(backend) \(kind.rawValue)" }
    }

    /// A setting whose new value waits for a restart; the running value stays in force.
    public struct RestartOnly: Sendable, Hashable, CustomStringConvertible {
        /// The key path in the config (`listen`, `limits.max_connections`).
        public var setting: String
        public var running: String
        public var configured: String

        public init(setting: String, running: String, configured: String) {
            self.setting = setting
            self.running = running
            self.configured = configured
        }

        public var description: String {
            "\(setting) is \(configured) in the config but \(running) until the gateway restarts"
        }
    }

    /// Why a new config is not taken at all.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The gateway listens beyond loopback and the new config has no client keys: it would
        /// serve the household's data to anyone on that network.
        case noClientKeys(listen: ListenAddress)

        public var description: String {
            switch self {
            case .noClientKeys(let listen):
                "the gateway listens on \(listen) and the new config has no `clients:` keys: refused, the old config keeps serving"
            }
        }
    }

    /// The config to serve: the loaded one with the restart-only settings of the running one.
    public var effective: DaygateConfig
    public var sections: [SectionChange]
    public var restartRequired: [RestartOnly]
    /// Other settings that changed and take effect for new requests (key paths).
    public var changed: [String]

    /// Whether the loaded config says the same as the running one (routes may still differ).
    public var isUnchanged: Bool { sections.isEmpty && restartRequired.isEmpty && changed.isEmpty }

    /// Settings a running gateway cannot take: the whole key, or its listed sub-keys.
    static let restartOnly: [String: Set<String>?] = [
        "listen": nil, "state_dir": nil, "limits": nil, "cache": ["max_size", "memory_size"],
    ]

    public static func make(running: DaygateConfig, loaded: DaygateConfig) throws(Refusal) -> ConfigReloadPlan {
        var effective = loaded
        effective.listen = running.listen
        effective.stateDir = running.stateDir
        effective.limits = running.limits
        effective.cache.maxSize = running.cache.maxSize
        effective.cache.memorySize = running.cache.memorySize
        if !effective.listen.isLoopback, effective.clients.isEmpty {
            throw .noClientKeys(listen: effective.listen)
        }

        let old = Self.object(running)
        let new = Self.object(loaded)
        var restartRequired: [RestartOnly] = []
        var changed: [String] = []
        for key in Set(old.keys).union(new.keys).sorted() where key != "profiles" {
            let before = old[key] ?? .null
            let after = new[key] ?? .null
            guard before != after else { continue }
            guard let fixed = restartOnly[key] else {
                changed.append(key)
                continue
            }
            guard case .object(let beforeFields) = before, case .object(let afterFields) = after else {
                restartRequired.append(.init(setting: key, running: Self.text(before), configured: Self.text(after)))
                continue
            }
            for field in Set(beforeFields.keys).union(afterFields.keys).sorted() {
                let was = beforeFields[field] ?? .null
                let now = afterFields[field] ?? .null
                guard was != now else { continue }
                if fixed?.contains(field) ?? true {
                    restartRequired.append(
                        .init(setting: "\(key).\(field)", running: Self.text(was), configured: Self.text(now)))
                } else {
                    changed.append("\(key).\(field)")
                }
            }
        }

        var sections: [SectionChange] = []
        for name in Set(running.profiles.keys).union(loaded.profiles.keys) {
            let before = Self.sections(running.profiles[name])
            let after = Self.sections(loaded.profiles[name])
            for backend in Set(before.keys).union(after.keys) {
                switch (before[backend], after[backend]) {
                case (nil, .some): sections.append(.init(profile: name, backend: backend, kind: .added))
                case (.some, nil): sections.append(.init(profile: name, backend: backend, kind: .removed))
                case (.some(let was), .some(let now)) where was != now:
                    sections.append(.init(profile: name, backend: backend, kind: .changed))
                default: break
                }
            }
        }
        return ConfigReloadPlan(
            effective: effective, sections: sections.sorted(), restartRequired: restartRequired, changed: changed)
    }

    /// The config as JSON with secrets revealed (compared in memory, never written anywhere).
    private static func object<Value: Encodable>(_ value: Value) -> [String: JSONValue] {
        let encoder = JSONEncoder()
        encoder.userInfo[.revealSecrets] = true
        guard let data = try? encoder.encode(value),
            case .object(let fields) = try? JSONValue(parsing: data)
        else { return [:] }
        return fields.dictionary
    }

    /// Each backend section of a profile, by backend name.
    private static func sections(_ profile: ProfileConfig?) -> [String: JSONValue] {
        profile.map { object($0) } ?? [:]
    }

    /// A restart-only value as a person reads it (these settings hold no secrets).
    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .null: return "(default)"
        default:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        }
    }
}
