import Model

/// `daygate connect ics`: calendars are subscriptions by URL, configured in the config.
public struct ICSConnect: BackendConnector {
    public init() {}

    public var backend: String { ICSSettings.backend }

    public var summary: String { "calendar subscriptions are configured by URL in the config (ics.calendars)" }

    public func connect(_ context: ConnectContext) async throws -> String {
        "Calendar subscriptions (ICS) are configured by URL in the config, under `ics: calendars:` "
            + "(a name and a url each, with `auth` for a feed that needs a password); there is no login to keep."
    }

    public func starterSection(email: String) -> [String] {
        [
            "# ics:                       # calendar subscriptions: uncomment and give each feed's URL",
            "#   calendars:",
            "#     - name: school",
            "#       url: https://example.org/school.ics",
        ]
    }

    public func nextSteps(configPath: String) -> [String] {
        ["# add your calendars' URLs to the ics section of \(configPath)"]
    }
}
