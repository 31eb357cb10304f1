import Foundation
import OpenAPIKit

/// The `clientKey` bearer scheme and the 401/403/431 answers the access and limit middleware
/// give, added to every operation.
extension OpenAPIDocument {
    static let clientKeyScheme = "clientKey"

    static var securitySchemes: [String: OpenAPI.SecurityScheme] {
        [
            clientKeyScheme: .http(
                scheme: "bearer",
                description:
                    "A client key from the gateway's `clients:` config, sent as `Authorization: Bearer <key>`; the key picks the "
                    + "profile whose data is served. Required on every endpoint but /healthz, /readyz and /openapi.json when "
                    + "the gateway has client keys: a missing or unknown key is then 401 `unauthorized` with `WWW-Authenticate: Bearer realm=\"daygate\"` "
                    + "(the same answer for both). Without client keys (loopback mode, the default) no key is needed and every "
                    + "request is served the default profile, but the `Host` header must name this machine (localhost, "
                    + "*.localhost, 127.x.x.x, [::1] or a name in `allowed_hosts`), else 403 `host_not_allowed`."
            )
        ]
    }

    /// `security` of an operation that needs a key when the gateway has client keys: the key,
    /// or nothing (loopback mode).
    static var optionalClientKey: [OpenAPI.SecurityRequirement] {
        [[.component(named: clientKeyScheme): []], [:]]
    }

    static let securityDescription =
        "\n\n**Security.** When the gateway has client keys (`clients:` in its config), every endpoint but /healthz, /readyz and /openapi.json needs "
        + "`Authorization: Bearer <key>` (security scheme `clientKey`); a missing or unknown key is 401 `unauthorized` with "
        + "`WWW-Authenticate: Bearer realm=\"daygate\"`, and the key decides the profile. Without client keys the gateway listens on "
        + "loopback only, needs no key and serves the default profile, and a request whose `Host` does not name this machine "
        + "is 403 `host_not_allowed` (against DNS rebinding). /healthz, /readyz and /openapi.json never need a key. Every request "
        + "may carry at most 100 headers and 32 KB of them (else 431 `headers_too_large`) and a body of at most 64 KB (else 413 "
        + "`body_too_large`)."
        + "\n\n**Scopes.** A client key may carry `scopes` (`clients[].scopes`): `read` (its profile's routes), `write` (also "
        + "every write: any method but GET and HEAD) and `household` (the routes under /v1/household/, which read every "
        + "member's day). A key without `scopes` has `read` and `write`. A request its key's scopes do not cover is 403 "
        + "`insufficient_scope`, before any backend is called; without client keys every request has every scope."
        + "\n\n**Writes** (tag `writes`) take `Content-Type: application/json` (else 415 `unsupported_media_type`) and a JSON object "
        + "with only the documented fields (else 400 `bad_request`, naming an unknown field). Each is passed to its backend once, "
        + "never retried, and then exactly the cached sections it made wrong are dropped (live dashboards hear of it over "
        + "/v1/stream). A POST may carry `Idempotency-Key`: a retry with the same key and body gets the kept answer again with "
        + "`Idempotent-Replayed: true`. A backend's refusal is `upstream_rejected` with 403, 404, 409, 410 or 422; its rate limit "
        + "429 `upstream_rate_limited` with `Retry-After`; a failing backend 502/503/504. Every error is the `Error` schema."

    /// `item` with `security`, 401 (where a key can be needed), 403 (`host_not_allowed`,
    /// `insufficient_scope`) and 431
    /// on every operation, unless the operation documents that status itself.
    static func secured(_ item: OpenAPI.PathItem, path: String) -> OpenAPI.PathItem {
        var item = item
        let needsKey = Admission.needsKey(route: path)
        for endpoint in item.endpoints {
            var operation = endpoint.operation
            if needsKey {
                operation.security = optionalClientKey
                if operation.responses[.status(code: 401)] == nil {
                    operation.responses[.status(code: 401)] = responseRef("Unauthorized")
                }
            }
            if operation.responses[.status(code: 403)] == nil {
                operation.responses[.status(code: 403)] = responseRef("Forbidden")
            }
            if operation.responses[.status(code: 431)] == nil {
                operation.responses[.status(code: 431)] = responseRef("HeadersTooLarge")
            }
            item.set(operation: operation, for: endpoint.method)
        }
        return item
    }
}
