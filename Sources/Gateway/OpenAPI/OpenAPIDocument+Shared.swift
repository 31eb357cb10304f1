import Backends
import Foundation
import Model
import OpenAPIKit

/// What many operations share: response headers, request-header parameters, and the answers
/// every endpoint can give.
extension OpenAPIDocument {
    static var headers: [String: OpenAPI.Header] {
        [
            "ETag": OpenAPI.Header(
                schema: .string,
                description: "A strong validator over the body; send it back in If-None-Match to get a 304."),
            "Cache-Control": OpenAPI.Header(
                schema: .string,
                description:
                    "`max-age=N` (the smallest remaining freshness of the sections) on complete, fresh answers; `no-cache` otherwise."
            ),
            "Age": OpenAPI.Header(
                schema: .integer(minimum: (0, exclusive: false)),
                description: "Seconds since the oldest data in the answer was fetched."),
            "Cache-Status": OpenAPI.Header(
                schema: .string,
                description:
                    "RFC 9211: how the gateway's cache handled each section, e.g. `daygate; hit; ttl=42; key=events`."),
            "Server-Timing": OpenAPI.Header(
                schema: .string, description: "Time spent per section, e.g. `events;dur=0.4`."),
            "X-Request-Id": OpenAPI.Header(
                schema: .string,
                description:
                    "The request's id (the client's X-Request-Id when it is sane, else a new one); also in the gateway's log."
            ),
        ]
    }

    static func headerRef(_ name: String) -> Either<OpenAPI.Reference<OpenAPI.Header>, OpenAPI.Header> {
        .reference(.component(named: name))
    }

    static func responseRef(_ name: String) -> Either<OpenAPI.Reference<OpenAPI.Response>, OpenAPI.Response> {
        .reference(.component(named: name))
    }

    static func jsonContent(_ schema: JSONSchema) -> OpenAPI.Content.Map {
        [.json: .b(OpenAPI.Content(schema: schema))]
    }

    static var requestIDHeader: OpenAPI.Header.Map {
        ["X-Request-Id": headerRef("X-Request-Id")]
    }

    static var cachingHeaders: OpenAPI.Header.Map {
        var map = OpenAPI.Header.Map()
        for name in ["Age", "Cache-Control", "Cache-Status", "ETag", "Server-Timing", "X-Request-Id"] {
            map[name] = headerRef(name)
        }
        return map
    }

    static var notModified: OpenAPI.Response {
        OpenAPI.Response(
            description: "Not Modified: the If-None-Match ETag still matches the answer (no body).",
            headers: cachingHeaders)
    }

    /// The request headers routes and writes take, as `components/parameters`, with the write
    /// endpoints' path parameters.
    static var parameterComponents: [String: OpenAPI.Parameter] {
        var parameters: [String: OpenAPI.Parameter] = [
            "IfNoneMatch": .header(
                name: "If-None-Match", schema: .string,
                description: "An ETag of an earlier answer; 304 without a body when the answer is unchanged."),
            "CacheControl": OpenAPI.Parameter(
                name: "Cache-Control",
                context: .header(
                    required: false,
                    schemaOrContent: .schema(
                        .init(.string, style: .default(for: .header), example: AnyCodable("no-cache")))),
                description: "`no-cache` (or `max-age=0`) makes the gateway refetch every section from its backend."),
            "IdempotencyKey": OpenAPI.Parameter(
                name: "Idempotency-Key",
                context: .header(
                    required: false,
                    schemaOrContent: .schema(
                        .init(
                            .string(minLength: 1, maxLength: 255, pattern: "^[!-~]+$"),
                            style: .default(for: .header),
                            example: AnyCodable("4f1c7e0a-9b2d-4c1e-8a55-2f0b6f3d9e71")))),
                description:
                    "1 to 255 visible ASCII characters, e.g. a UUID (else 400 `bad_request`). The first request with a key is "
                    + "executed and its answer (success or 4xx) kept for 24 hours per profile; a retry with the same key and the "
                    + "same method, path and body gets that answer again with `Idempotent-Replayed: true` and writes nothing; "
                    + "the same key with another request is 422 `idempotency_key_reused`; a retry while the first is still "
                    + "running is 409 `idempotency_key_in_flight`. A write whose outcome is unknown (a timeout, a 5xx — which "
                    + "can come after the write was stored — that reading back did not settle) answers every retry with "
                    + "409 `idempotency_outcome_unknown`; a 429 or a connection refused frees the key for a retry."
            ),
        ]
        for write in BackendCatalog.writes {
            for component in write.documentation.parameters where parameters[component.name] == nil {
                parameters[component.name] = component.parameter
            }
        }
        return parameters
    }

    static var sharedResponses: [String: OpenAPI.Response] {
        let error = jsonContent(ErrorBody.schemaComponent.reference)
        return [
            "BadRequest": OpenAPI.Response(
                description:
                    "Bad input: a malformed or out-of-range value, an unknown or repeated parameter "
                    + "(names starting with _ are ignored). Code bad_parameter.",
                headers: requestIDHeader, content: error),
            "Error": OpenAPI.Response(
                description:
                    "Any other error (404 not_found for unknown paths, 405 method_not_allowed, 413 body_too_large, 500): JSON of the same shape.",
                headers: requestIDHeader, content: error),
        ]
    }
}
