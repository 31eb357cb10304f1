import Backends
import Foundation
import Model
import OpenAPIKit

/// The write endpoints: each backend's `BackendWrite.documentation`, with what every write
/// shares: the errors it can get (its own refusals, the backend's, the gateway's limits) and
/// the `Idempotency-Key` of POSTs.
extension OpenAPIDocument {
    static var writeHeaders: [String: OpenAPI.Header] {
        Dictionary(
            uniqueKeysWithValues: ["Retry-After", "Idempotent-Replayed", "WWW-Authenticate"].map {
                ($0, writeHeader($0))
            })
    }

    /// A header of write and security answers (`required`: the answer always carries it).
    static func writeHeader(_ name: String, required: Bool = false) -> OpenAPI.Header {
        switch name {
        case "Retry-After":
            OpenAPI.Header(
                schema: .integer(minimum: (0, exclusive: false)),
                description:
                    "Seconds to wait before trying again: the backend's own Retry-After, or how long the gateway holds calls to it back "
                    + "(its rate limit, an open circuit, a blocked login).",
                required: required)
        case "Idempotent-Replayed":
            OpenAPI.Header(
                schema: .enumeration(["true"]),
                description:
                    "`true` when this is the kept answer of an earlier request with the same Idempotency-Key and body; nothing was written again.",
                required: required)
        default:
            OpenAPI.Header(
                schema: .string(examples: [AnyCodable("Bearer realm=\"daygate\"")]),
                description: "The scheme to authenticate with: `Bearer realm=\"daygate\"`.", required: required)
        }
    }

    static func errorResponse(_ description: String, headers extra: OpenAPI.Header.Map = [:])
        -> Either<OpenAPI.Reference<OpenAPI.Response>, OpenAPI.Response>
    {
        var headers = requestIDHeader
        for (name, header) in extra { headers[name] = header }
        return .b(
            OpenAPI.Response(
                description: description, headers: headers, content: jsonContent(ErrorBody.schemaComponent.reference)))
    }

    /// A header a response always carries.
    static func requiredHeader(_ name: String) -> Either<OpenAPI.Reference<OpenAPI.Header>, OpenAPI.Header> {
        .b(writeHeader(name, required: true))
    }

    static var securityAndWriteResponses: [String: OpenAPI.Response] {
        let responses: [String: Either<OpenAPI.Reference<OpenAPI.Response>, OpenAPI.Response>] = [
            "Unauthorized": errorResponse(
                "Only when the gateway has client keys: no `Authorization: Bearer <key>`, or a key it does not know (the same answer "
                    + "for both). Code `unauthorized`.",
                headers: ["WWW-Authenticate": requiredHeader("WWW-Authenticate")]
            ),
            "Forbidden": errorResponse(
                "The `Host` header does not name this machine (localhost, *.localhost, 127.x.x.x, [::1] or a name in "
                    + "`allowed_hosts`; with client keys also any IP address and this machine's own name): code "
                    + "`host_not_allowed`. Or the key's scopes do not cover the request (a write without `write`, a "
                    + "household route without `household`, a profile's route without `read`): code `insufficient_scope`."
            ),
            "HeadersTooLarge": errorResponse(
                "More than 100 request headers or more than 32 KB of them. Code `headers_too_large`."),
            "BodyTooLarge": errorResponse(
                "The request body is larger than 64 KB (declared or sent). Code `body_too_large`."),
            "UnsupportedMediaType": errorResponse(
                "The request is not `Content-Type: application/json` (a page on another site cannot send that without a CORS "
                    + "preflight). Code `unsupported_media_type`."
            ),
            "RateLimited": errorResponse(
                "The backend is rate limiting: it answered 429, or the gateway holds calls back until its Retry-After has passed. "
                    + "Code `upstream_rate_limited`. Nothing was written.",
                headers: ["Retry-After": requiredHeader("Retry-After")]
            ),
            "BadGateway": errorResponse(
                "The backend failed: `upstream_error` (a 5xx or an unexpected status), `upstream_unreachable` (no connection), "
                    + "`upstream_bad_response` (an answer that is not what its contract says), `reauth_required` (it refused the "
                    + "configured credentials; a person has to fix the config). The write was not retried; whether it happened "
                    + "upstream is unknown for upstream_error and upstream_bad_response."
            ),
            "Unavailable": errorResponse(
                "The backend was not called: `upstream_circuit_open` (it failed repeatedly), `reauth_blocked` (logging in again "
                    + "is not allowed yet), `upstream_unavailable` (a known upstream bug on this route). Retry-After when the wait is known.",
                headers: ["Retry-After": headerRef("Retry-After")]
            ),
            "GatewayTimeout": errorResponse(
                "The backend did not answer within its timeout. Code `upstream_timeout`; whether the write happened is unknown."
            ),
        ]
        return responses.compactMapValues(\.b)
    }

    /// One write's operation: what its backend declares, and the statuses every write shares.
    /// A write's `links` (`WriteLink`), each to an operation of this document.
    static func links(_ links: [WriteLink]) -> OpenAPI.Link.Map {
        var map: OpenAPI.Link.Map = [:]
        for link in links {
            var parameters: OrderedDictionary<String, Either<OpenAPI.RuntimeExpression, AnyCodable>> = [:]
            for (name, expression) in link.parameters {
                guard let parsed = OpenAPI.RuntimeExpression(rawValue: expression) else {
                    preconditionFailure("\(link.name): \(expression) is not a runtime expression")
                }
                parameters[name] = .a(parsed)
            }
            map[link.name] = .b(OpenAPI.Link(operationId: link.operationID, parameters: parameters))
        }
        return map
    }

    static func writeOperation(_ write: any BackendWrite) -> OpenAPI.Operation {
        let doc = write.documentation
        let backend = doc.backend
        let isPost = write.honoursIdempotencyKey
        var successHeaders = requestIDHeader
        if isPost { successHeaders["Idempotent-Replayed"] = headerRef("Idempotent-Replayed") }
        let idempotency = isPost ? " Idempotency-Key: a malformed key." : ""
        var responses: OpenAPI.Response.Map = [
            .status(code: doc.success.status): .b(
                OpenAPI.Response(
                    description: doc.success.description, headers: successHeaders,
                    content: doc.success.schema.map { jsonContent($0.reference) } ?? [:], links: links(doc.links))),
            .status(code: 400): errorResponse(
                "Code `bad_request`: \(doc.badRequest); the message says which.\(idempotency)"),
            .status(code: 401): responseRef("Unauthorized"),
            .status(code: 403): errorResponse(
                "`host_not_allowed` (loopback mode, a `Host` that is not this machine), or `upstream_rejected`: \(backend) "
                    + "answered 403." + (doc.forbidden.map { " " + $0 } ?? "")
            ),
            .status(code: 404): errorResponse(
                (doc.notFound.map { $0 + " " } ?? "")
                    + "`not_configured`: the profile has no \(backend); `upstream_rejected`: \(backend) answered 404."
            ),
            .status(code: 409): errorResponse(
                (doc.conflict.map { $0 + " " } ?? "")
                    + (isPost
                        ? "`idempotency_key_in_flight`: a request with this Idempotency-Key is still running. " : "")
                    + "`upstream_rejected`: \(backend) answered 409."
            ),
            .status(code: 410): errorResponse("`upstream_rejected`: \(backend) answered 410 Gone."),
            .status(code: 413): responseRef("BodyTooLarge"),
            .status(code: 422): errorResponse(
                (isPost ? "`idempotency_key_reused`: this Idempotency-Key was used for a different request. " : "")
                    + "`upstream_rejected`: \(backend) refused the request with another 4xx (its message, scrubbed of secrets, "
                    + "is in the error's message)."
            ),
            .status(code: 429): doc.rateLimit.map {
                errorResponse(
                    $0 + " Code `upstream_rate_limited`; nothing was written.",
                    headers: ["Retry-After": requiredHeader("Retry-After")])
            } ?? responseRef("RateLimited"),
            .status(code: 431): responseRef("HeadersTooLarge"),
            .status(code: 502): responseRef("BadGateway"),
            .status(code: 503): responseRef("Unavailable"),
            .status(code: 504): responseRef("GatewayTimeout"),
            .default: responseRef("Error"),
        ]
        if doc.body != nil { responses[.status(code: 415)] = responseRef("UnsupportedMediaType") }

        var parameters: OpenAPI.Parameter.Array = doc.parameters.map(\.reference)
        if isPost { parameters.append(.reference(.component(named: "IdempotencyKey"))) }
        return OpenAPI.Operation(
            tags: ["writes"],
            summary: doc.summary,
            description: doc.description,
            operationId: doc.operationID,
            parameters: parameters,
            // A write that takes no fields (`fields` empty) may come without a body.
            requestBody: doc.body.map {
                OpenAPI.Request(content: jsonContent($0.reference), required: write.fields?.isEmpty != true)
            },
            responses: responses
        )
    }
}

extension OpenAPI.PathItem {
    /// Sets the operation of a write's method.
    mutating func set(operation: OpenAPI.Operation, for method: WriteMethod) {
        switch method {
        case .post: post = operation
        case .put: put = operation
        case .delete: delete = operation
        }
    }
}
