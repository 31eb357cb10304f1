import Backends
import Cache
import Foundation
import Logging
import Model

/// `daygate check`'s credential part: for every profile and configured backend, the backend's
/// own cheap authenticated call (`BackendConnector.check`) with the state directory's vault, so
/// a kept login is used (and a rotated token kept) exactly as the gateway would.
enum CredentialChecks {
    struct Report {
        var lines: [String] = []
        var failed = 0
    }

    static func run(_ config: DaygateConfig, now: Date = Date()) async throws -> Report {
        let database = try CacheDatabase(stateDirectory: config.stateDir)
        let sessions = SessionRegistry(vault: SQLiteCredentialVault(database: database))
        if let file = config.limits.upstreamCAFile { try UpstreamHTTP.checkTrustedCAFile(file) }
        let http = UpstreamHTTP(
            idleTimeout: config.limits.upstreamIdleTimeout.seconds, trustedCAFile: config.limits.upstreamCAFile)
        let zone = TimeZone(identifier: config.timezone) ?? .current
        var report = Report()
        for (name, profile) in config.profiles.sorted(by: { $0.key < $1.key }) {
            let context = OperationContext(
                profileName: name, profile: profile, clock: RequestClock(now: now, timeZone: zone), http: http,
                sessions: sessions, logger: Logger(label: "daygate.check"))
            for connector in BackendCatalog.connectors where profile.configuredBackends.contains(connector.backend) {
                let checks = await connector.check(context)
                if checks.isEmpty {
                    report.lines.append("\(name)/\(connector.backend): nothing to check (no login)")
                }
                for check in checks {
                    let scope = check.scope.map { " [\($0)]" } ?? ""
                    report.lines.append(
                        "\(name)/\(connector.backend)\(scope): \(check.ok ? "ok" : "FAILED") — \(check.message)")
                    if !check.ok { report.failed += 1 }
                }
            }
        }
        await http.shutdown()
        return report
    }
}
