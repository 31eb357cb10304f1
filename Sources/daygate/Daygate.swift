import ArgumentParser

@main
struct Daygate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daygate",
        abstract: "One local JSON API for the household's day, cached in SQLite.",
        subcommands: [DemoCommand.self, ServeCommand.self, CheckCommand.self, SimulateCommand.self, CacheCommand.self],
        defaultSubcommand: DemoCommand.self
    )
}
