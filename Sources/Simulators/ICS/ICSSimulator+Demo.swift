import Model

extension SimulatorKind {
    /// Calendar subscriptions: any web server that serves iCalendar feeds.
    public static let ics = SimulatorKind("ics")
}

extension DemoSimulator {
    /// Calendar subscriptions in the demo: the four demo feeds (``ICSSimulator/demoCalendars``),
    /// each with its own credentials.
    public static let ics = DemoSimulator(
        kind: .ics,
        start: { seed, port in
            try await ICSSimulator(options: .init(seedDay: seed.day, timeZone: seed.timeZone)).start(port: port)
        },
        demoSettings: { running in
            .object(["calendars": .array(ICSSimulator.demoCalendars.map { $0.settings(on: running) })])
        },
        memberSettings: { _, running in
            // The whole household subscribes to the school's and the club's calendars.
            .object([
                "calendars": .array(
                    ICSSimulator.demoCalendars.filter { ["school", "club"].contains($0.name) }.map {
                        $0.settings(on: running)
                    })
            ])
        })
}

extension ICSSimulator.DemoCalendar {
    /// This calendar as a profile's `ics.calendars` item writes it, served by `running`.
    public func settings(on running: RunningSimulator) -> JSONValue {
        var fields: JSONObject = [
            "name": .string(name), "url": .string(running.baseURL + path), "color": .string(colour),
        ]
        switch auth {
        case .anonymous: break
        case .basic(let user, let password):
            fields.fields += [("username", .string(user)), ("password", .string(password))]
        case .bearer(let token): fields.fields.append(("token", .string(token)))
        }
        return .object(fields)
    }
}
