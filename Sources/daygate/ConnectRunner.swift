import Backends
import Cache
import Foundation
import Model

/// What `daygate connect` does, without the flag parsing (the tests call it).
enum ConnectRunner {
    enum Action: Equatable {
        case connect
        case list
        case remove(String)
    }

    static func run(
        backend: String, configPath: String, profile: String, action: Action, prompt: any ConnectPrompt,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> String {
        guard let connector = BackendCatalog.connectors.first(where: { $0.backend == backend }) else {
            throw FailureMessage(
                text:
                    "unknown backend \(backend); one of \(BackendCatalog.connectors.map(\.backend).joined(separator: ", "))"
            )
        }
        let loaded = try ConfigFile.load(configPath)
        guard let settings = loaded.profiles[profile] else {
            throw FailureMessage(
                text:
                    "the config has no profile \(profile) (it has \(loaded.profiles.keys.sorted().joined(separator: ", ")))"
            )
        }
        let database = try CacheDatabase(stateDirectory: loaded.stateDir)
        if let file = loaded.limits.upstreamCAFile { try UpstreamHTTP.checkTrustedCAFile(file) }
        let http = UpstreamHTTP(
            idleTimeout: loaded.limits.upstreamIdleTimeout.seconds, trustedCAFile: loaded.limits.upstreamCAFile)
        let context = ConnectContext(
            profileName: profile, profile: settings, vault: SQLiteCredentialVault(database: database), http: http,
            prompt: prompt, now: now)
        let outcome: Result<String, any Error>
        do {
            switch action {
            case .connect:
                outcome = .success(try await connector.connect(context))
            case .list:
                let lines = try await connector.list(context)
                outcome = .success(
                    lines.isEmpty
                        ? "Nothing is kept for \(backend) in profile \(profile)." : lines.joined(separator: "\n"))
            case .remove(let id):
                outcome = .success(try await connector.remove(id, context: context))
            }
        } catch let error as ConnectError {
            outcome = .failure(FailureMessage(text: error.message))
        } catch let error as BackendError {
            outcome = .failure(FailureMessage(text: error.message))
        } catch {
            outcome = .failure(error)
        }
        await http.shutdown()
        return try outcome.get()
    }
}
