import CoreMetrics
import Logging

@testable import Gateway

extension ConnectionBudget {
    /// A budget of 16 connections with the default time limits and no metrics, for tests that
    /// drive a connection's handlers over a testing channel.
    static func forTests() -> ConnectionBudget {
        ConnectionBudget(
            limit: 16, timeouts: .init(head: .seconds(10), body: .seconds(10), idle: .seconds(60)),
            metrics: NOOPMetricsHandler.instance, logger: Logger(label: "test"))
    }
}
