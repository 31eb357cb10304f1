import Aggregation
import Backends
import Foundation
import Model
import Testing

/// Household route files (`household:`): what they may say, checked when routes load.
@Suite("Household route files")
struct HouseholdRouteFileTests {
    let routes = RouteLoaderTests()

    static let sections = """
        sections:
          events:
            operation: eightalls.events
          subscribed:
            operation: ics.events
            merge_into: events
          nutrition:
            operation: fitiq.nutrition
            opt_in: true
        """

    @Test func theShippedHouseholdRouteLoads() throws {
        let route = try #require(
            try RouteLoader().load(directory: RouteLoaderTests.shippedRoutes).first { $0.path == "/v1/household/today" }
        )
        #expect(route.household?.combine == ["events"])
        #expect(route.sections.first { $0.name == "nutrition" }?.optIn == true)
        #expect(route.sections.first { $0.name == "plan" }?.optIn == false)
    }

    @Test func aHouseholdRouteDeclaresItselfAndLivesUnderItsPrefix() throws {
        let fine = try RouteLoader().parse(
            "path: /v1/household/week\nhousehold:\n  combine: [events]\n" + Self.sections, file: "week.yaml")
        #expect(fine.household == Route.HouseholdShape(combine: ["events"]))
        let outside = routes.problems("path: /v1/week\nhousehold: {}\n" + Self.sections)
        #expect(outside.map(\.keyPath).contains("household"), "\(outside)")
        let undeclared = routes.problems(
            "path: /v1/household/week\nsections:\n  events:\n    operation: eightalls.events\n")
        #expect(undeclared.map(\.keyPath) == ["path"], "the household scope goes by the path: \(undeclared)")
    }

    @Test(arguments: [
        ("[calendar]", "names no section"), ("[subscribed]", "names no section"), ("[events, events]", "twice"),
    ])
    func combineNamesListsOfTheRoute(combine: String, reason: String) {
        let problems = routes.problems(
            "path: /v1/household/week\nhousehold:\n  combine: \(combine)\n" + Self.sections)
        #expect(problems.contains { $0.keyPath == "household.combine" && $0.reason.contains(reason) }, "\(problems)")
    }

    @Test func aParameterOrListCannotTakeTheAnswersOwnKeys() {
        let problems = routes.problems(
            """
            path: /v1/household/week
            household: {}
            parameters:
              members: { type: string }
            sections:
              events:
                operation: eightalls.events
            """)
        #expect(problems.contains { $0.keyPath == "parameters.members" }, "\(problems)")
    }

    @Test func optInIsForHouseholdRoutesOnly() {
        let problems = routes.problems(
            "path: /v1/day\nsections:\n  nutrition:\n    operation: fitiq.nutrition\n    opt_in: true\n")
        #expect(problems.contains { $0.keyPath == "sections.nutrition.opt_in" }, "\(problems)")
    }
}
