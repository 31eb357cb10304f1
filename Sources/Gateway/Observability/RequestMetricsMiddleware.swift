import CoreMetrics
import Hummingbird
import Synchronization

/// Counts every request and times it, per route (the matched path pattern, so ids in paths do
/// not multiply the series), method and status: `daygate_http_requests_total` and the
/// histogram `daygate_http_request_duration_seconds`.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let handles: RequestMetricHandles

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status.code, started: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context: context, status: status, started: started)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, started: ContinuousClock.Instant) {
        let route = context.endpointPath ?? (status == 404 ? "unmatched" : "static")
        handles.record(route: route, method: request.method.rawValue, status: status, since: started)
    }
}

/// The counter and timer of each (route, method, status), made once: looking a metric up in
/// the Prometheus registry on every request costs more than the request's own work on a hit.
final class RequestMetricHandles: Sendable {
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Counts one request and records how long it took.
    func record(route: String, method: String, status: Int, since started: ContinuousClock.Instant) {
        handles(route: route, method: method, status: status).record(since: started)
    }

    private struct Series: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    /// One series' counter and timer.
    struct Handles: Sendable {
        let counter: Counter
        let timer: Timer

        func record(since started: ContinuousClock.Instant) {
            counter.increment()
            timer.recordInterval(ContinuousClock.now - started)
        }
    }

    private let series = Mutex<[Series: Handles]>([:])

    /// The series of (route, method, status), made the first time it is asked for.
    func handles(route: String, method: String, status: Int) -> Handles {
        let key = Series(route: route, method: method, status: status)
        return series.withLock { series in
            if let found = series[key] { return found }
            let dimensions = [("route", route), ("method", method), ("status", String(status))]
            let made = Handles(
                counter: Counter(label: "daygate_http_requests_total", dimensions: dimensions, factory: factory),
                timer: Timer(label: "daygate_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            )
            series[key] = made
            return made
        }
    }
}
