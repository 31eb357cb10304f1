import ArgumentParser
import Model
import NIOCore
import NIOPosix

struct Daygate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daygate",
        abstract: "One local JSON API for the household's day, cached in SQLite.",
        version: DaygateVersion.current,
        subcommands: [
            DemoCommand.self, ServeCommand.self, InitCommand.self, ConnectCommand.self, CheckCommand.self,
            SimulateCommand.self, CacheCommand.self,
        ],
        defaultSubcommand: DemoCommand.self
    )
}

/// The entry point. Before anything runs, SwiftNIO's event loops become Swift Concurrency's
/// global executor: the server, the shared HTTP client and every task then run on the same
/// threads, so a request no longer hops from its connection's event loop to the concurrency
/// pool and back (on a small machine those hops cost more than serving a cached answer). SwiftNIO
/// runs those jobs as each loop's serial executor, though: a request's task also prefers the
/// loops as a task executor (`EventLoopTaskExecutor`), so that its calls into nonisolated code
/// do not queue it again.
@main
enum DaygateMain {
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await Daygate.main()
    }
}
