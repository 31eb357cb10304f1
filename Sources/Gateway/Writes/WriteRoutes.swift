import Aggregation
import Backends
import Cache
import Foundation
import HTTPTypes
import Hummingbird
import Model

/// The write endpoints: every `BackendWrite` the backends register (`BackendCatalog.writes`),
/// served the same way. Each reads and checks its JSON body (64 KB at most, known fields
/// only), passes the write to its backend once (never retried blindly), then drops exactly the
/// cache entries the write declares wrong — which tells live dashboards over /v1/stream — and
/// answers JSON. POSTs honour `Idempotency-Key` (`IdempotencyGuard`).
struct WriteRoutes: Sendable {
    let runtime: GatewayRuntime
    let idempotency: IdempotencyGuard
    let writes: [any BackendWrite]

    init(runtime: GatewayRuntime, writes: [any BackendWrite] = BackendCatalog.writes) {
        self.runtime = runtime
        self.idempotency = runtime.durable.idempotency
        self.writes = writes
    }

    func register(on router: Router<GatewayRequestContext>) {
        for write in writes {
            router.on(RouterPath(write.path), method: HTTPRequest.Method(rawValue: write.method.rawValue)!) {
                request, context in
                try await serve(write, request, context)
            }
        }
    }

    func serve(_ write: any BackendWrite, _ httpRequest: Request, _ context: GatewayRequestContext) async throws
        -> Response
    {
        // Admission refuses a write without the `write` scope before any route; checked again
        // where every write starts, so no route can reach a backend around it.
        guard context.scopes.contains(.write) else {
            throw GatewayError(
                .forbidden, code: "insufficient_scope",
                message: "this key may not write (its scopes: \(ClientScope.describe(context.scopes)); needed: write)")
        }
        var input = WriteRequest(
            parameters: try pathParameters(of: write, context), query: try queryParameters(of: write, httpRequest))
        if let fields = write.fields {
            let (body, bytes) = try await WriteBody.object(of: httpRequest, emptyAllowed: fields.isEmpty)
            try WriteBody.check(body, allowed: fields)
            input.body = body
            input.bytes = bytes
        }
        do {
            try write.check(input)
        } catch {
            throw WriteError.gatewayError(for: error)
        }
        let request = input
        let run: @Sendable () async throws -> (HTTPResponse.Status, Data) = {
            let result: WriteResult
            do {
                result = try await perform(context) { try await write.perform(request, context: $0) }
            } catch let failure as WriteFailed where failure.outcome == .unknown {
                // It may have landed: the next read asks the backend, and shows whether it did.
                await invalidate(write.invalidationsIfItMayHaveHappened(request), profile: context.profile)
                throw failure
            }
            await invalidate(result.invalidations, profile: context.profile)
            return (HTTPResponse.Status(code: result.status), result.body)
        }
        if write.honoursIdempotencyKey {
            return try await idempotency.run(
                request: httpRequest, profile: context.profile, body: input.bytes, write: run)
        }
        let (status, body) = try await run()
        return JSONResponse.make(status: status, body: body)
    }

    /// Drops what a write made wrong, for the writing profile only.
    func invalidate(_ invalidations: [CacheInvalidation], profile: String) async {
        for invalidation in invalidations {
            await runtime.cache.invalidate(profile: profile, operation: invalidation.operation) {
                invalidation.matches($0)
            }
        }
    }

    /// Runs a backend write for the request's profile; maps every failure to its JSON answer and
    /// to whether the write may have happened (`WriteFailed`).
    func perform<Value: Sendable>(
        _ context: GatewayRequestContext, _ write: @Sendable (OperationContext) async throws -> Value
    ) async throws -> Value {
        guard let profile = runtime.config.profiles[context.profile] else {
            throw GatewayError(.notFound, code: "unknown_profile", message: "no profile \(context.profile)")
        }
        let operationContext = OperationContext(
            profileName: context.profile, profile: profile, clock: runtime.aggregator.clock(), http: runtime.http,
            sessions: runtime.sessions, logger: context.logger
        )
        do {
            let value = try await write(operationContext)
            context.logger.info("write done")
            return value
        } catch {
            let failure = WriteFailed(error)
            context.logger.warning(
                "write refused",
                metadata: [
                    "error.code": "\(failure.answer.detail.code)", "status": "\(failure.status.code)",
                    "outcome": "\(failure.outcome)",
                ])
            throw failure
        }
    }

    /// The query parameters the write declares (`BackendWrite.queryNames`), percent-decoded;
    /// an undeclared name, or a declared one given twice, is a 400 that names it.
    func queryParameters(of write: any BackendWrite, _ request: Request) throws -> [String: String] {
        let items: [(String, String)]
        do {
            items = try QueryItems.parse(request.uri.query)
        } catch {
            throw GatewayError(.badRequest, code: "bad_request", message: error.message)
        }
        let allowed = write.queryNames
        var query: [String: String] = [:]
        for (name, value) in items {
            guard allowed.contains(name) else {
                let known = allowed.isEmpty ? "it takes none" : "it takes \(allowed.sorted().joined(separator: ", "))"
                throw GatewayError(
                    .badRequest, code: "bad_request",
                    message: "unknown query parameter \(RouteParameter.shown(name)) (\(known))")
            }
            guard query.updateValue(value, forKey: name) == nil else {
                throw GatewayError(.badRequest, code: "bad_request", message: "\(name) is given more than once")
            }
        }
        return query
    }

    /// The route's `{name}` parameters, percent-decoded, each 1 to 200 characters.
    func pathParameters(of write: any BackendWrite, _ context: GatewayRequestContext) throws -> [String: String] {
        var parameters: [String: String] = [:]
        for component in write.path.split(separator: "/") where component.hasPrefix("{") && component.hasSuffix("}") {
            let name = String(component.dropFirst().dropLast())
            guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding, !value.isEmpty,
                value.count <= 200
            else {
                throw GatewayError(.badRequest, code: "bad_request", message: "\(name) must be 1 to 200 characters")
            }
            parameters[name] = value
        }
        return parameters
    }
}
