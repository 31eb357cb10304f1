import CoreMetrics
import Hummingbird

/// Counts every request and times it, per route (the matched path pattern, so ids in paths do
/// not multiply the series), method and status: `daygate_http_requests_total` and the
/// histogram `daygate_http_request_duration_seconds`.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let factory: any MetricsFactory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
        let dimensions = [("route", route), ("method", request.method.rawValue), ("status", String(status))]
        Counter(label: "daygate_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Timer(label: "daygate_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .recordInterval(ContinuousClock.now - started)
    }
}
