import ArgumentParser
import Cache
import Foundation
import Model

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Inspect or empty the cache.",
        subcommands: [Stats.self, Purge.self]
    )

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Entries and bytes in the cache, per profile and operation.")

        @Option(name: .long, help: "The config file (YAML).")
        var config: String

        func run() throws {
            let loaded = try ConfigFile.load(config)
            let stats = try CacheDatabase(stateDirectory: loaded.stateDir).stats()
            Console.line(
                "cache \(loaded.stateDir)/cache.sqlite: \(stats.entries) entries, \(stats.bytes) bytes (cap \(loaded.cache.maxSize.bytes))"
            )
            for (profile, count) in stats.profiles.sorted(by: { $0.key < $1.key }) {
                Console.line("  profile \(profile): \(count)")
            }
            for (operation, count) in stats.operations.sorted(by: { $0.key < $1.key }) {
                Console.line("  operation \(operation): \(count)")
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete cached entries (all, or one profile's).")

        @Option(name: .long, help: "The config file (YAML).")
        var config: String

        @Option(name: .long, help: "Only this profile's entries.")
        var profile: String?

        func run() async throws {
            let loaded = try ConfigFile.load(config)
            let deleted = try await CacheDatabase(stateDirectory: loaded.stateDir).purge(profile: profile)
            Console.line("purged \(deleted) entries")
        }
    }
}
