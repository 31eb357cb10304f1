import Aggregation
import Backends
import Foundation
import Model
import OpenAPIKit

/// `GET /openapi.json`: an OpenAPI 3.1 description of the whole unified API, built once (on
/// the first request, `OpenAPIDocumentOnDemand`) as an `OpenAPI.Document` (OpenAPIKit). The core describes what is its own: info,
/// security, shared headers and answers, the gateway's own endpoints, and the route endpoints
/// from the loaded route files (users add their own), whose answer schemas are made of the
/// sections' operation bodies. Everything else is declared by the backends in their homes and
/// found through `BackendCatalog`: each operation's body (`BackendOperation.bodySchema`), each
/// write (`BackendWrite.documentation`), the keys of `/v1/summary` and `/v1/sources` their
/// parts add; the model types' schemas sit next to the types (`Event+Schema.swift`).
public enum OpenAPIDocument {
    public static let openAPIVersion = "3.1.0"
    /// The backends /v1/sources reports on.
    public static var backends: [String] { BackendCatalog.names }
    /// The example of every date parameter.
    public static let exampleDate = "2026-11-22"

    /// The document as JSON, keys sorted.
    public static func make(routes: [Route]) -> Data {
        (try? JSONCoding.encode(document(routes: routes))) ?? Data("{}".utf8)
    }

    /// The document as a typed value; `document(routes:).validate()` checks it.
    public static func document(routes: [Route]) -> OpenAPI.Document {
        var schemas = declaredSchemas(routes: routes)
        var paths: [String: OpenAPI.PathItem] = [:]

        var usedNames = Set<String>()
        var names: [String: String] = [:]
        for route in routes.sorted(by: { $0.path < $1.path }) {
            var base = camelName(route.path)
            if base.isEmpty { base = "Route" }
            var name = base
            var counter = 2
            while usedNames.contains(name) || schemas["\(name)Answer"] != nil {
                name = "\(base)\(counter)"
                counter += 1
            }
            usedNames.insert(name)
            names[route.path] = name
            schemas["\(name)Answer"] = route.household == nil ? answerSchema(route) : householdAnswerSchema(route)
        }
        for route in routes {
            guard let name = names[route.path] else { continue }
            paths[route.path] = OpenAPI.PathItem(
                get: routeOperation(
                    route, operationID: "get\(name)", answer: "\(name)Answer",
                    links: links(from: route.path, to: routes, operationIDs: names.mapValues { "get\($0)" })))
        }
        for (path, operation) in gatewayOperations {
            paths[path] = OpenAPI.PathItem(get: operation)
        }
        for write in BackendCatalog.writes {
            var item = paths[write.path] ?? OpenAPI.PathItem()
            item.set(operation: writeOperation(write), for: write.method)
            paths[write.path] = item
        }

        var pathMap = OpenAPI.PathItem.Map()
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            pathMap[OpenAPI.Path(rawValue: path)] = .b(secured(item, path: path))
        }
        return OpenAPI.Document(
            openAPIVersion: .v3_1_0,
            info: OpenAPI.Document.Info(title: "daygate unified API", description: infoDescription, version: "1"),
            servers: [],
            paths: pathMap,
            components: .direct(
                schemas: componentDictionary(schemas),
                responses: componentDictionary(sharedResponses.merging(securityAndWriteResponses) { mine, _ in mine }),
                parameters: componentDictionary(parameterComponents),
                headers: componentDictionary(headers.merging(writeHeaders) { mine, _ in mine }),
                securitySchemes: componentDictionary(securitySchemes)
            ),
            security: [],
            tags: [
                OpenAPI.Tag(name: "routes", description: "Aggregated endpoints, one per route file."),
                OpenAPI.Tag(name: "gateway", description: "Endpoints the gateway serves itself."),
                OpenAPI.Tag(
                    name: "writes",
                    description: "Changes passed to a backend; the cached sections they affect are dropped."),
            ]
        )
    }

    /// The links of the answer of the route at `path`: one to each route some of whose path
    /// parameters take their real values from it (`values_from`), named by that route's
    /// operation id.
    static func links(from path: String, to routes: [Route], operationIDs: [String: String]) -> OpenAPI.Link.Map {
        var links: [WriteLink] = []
        for route in routes.sorted(by: { $0.path < $1.path }) {
            guard let operationID = operationIDs[route.path] else { continue }
            let parameters: [(name: String, expression: String)] = route.parameters.compactMap { parameter in
                parameter.valuesFrom.flatMap { source in
                    source.path == path ? (name: parameter.name, expression: "$response.body#\(source.pointer)") : nil
                }
            }
            if !parameters.isEmpty { links.append(WriteLink(operationID, to: operationID, parameters: parameters)) }
        }
        return Self.links(links)
    }

    static let infoDescription =
        "One JSON API over a household's services (backends: \(BackendCatalog.names.joined(separator: ", "))). "
        + "Every endpoint under /v1 except /v1/summary, /v1/sources and /v1/stream comes from a route file "
        + "(routes/*.yaml): its answer carries each parameter's value, complete/stale/age_seconds, per-section "
        + "metadata under `sections`, and one key per section with that operation's body (null when the "
        + "section has no data; absent when the profile has not configured its backend; a section with "
        + "`merge_into` joins its list into another section's key). Dates and times are in the gateway's "
        + "configured timezone. This document is generated on its first request from the loaded routes."
        + securityDescription

    /// Every component schema the core and the backends declare, with the components they use:
    /// the error body and section metadata, the gateway's own answers, every registered
    /// operation's body (and those of the routes' operations), every write's body and answer,
    /// and what the summary and sources parts add.
    static func declaredSchemas(routes: [Route]) -> [String: JSONSchema] {
        var components: [SchemaComponent] = [ErrorBody.schemaComponent, SectionReport.schemaComponent]
        components += gatewayComponents
        let operations =
            OperationRegistry.standard.names.compactMap { OperationRegistry.standard[$0] }
            + routes.flatMap { $0.sections.map(\.operation) }
        components += operations.map(\.bodySchema)
        for write in BackendCatalog.writes {
            components += [write.documentation.body, write.documentation.success.schema].compactMap { $0 }
        }
        components += BackendCatalog.summaryParts.flatMap(\.keyComponents)
        components += BackendCatalog.sourcesParts.flatMap(\.detailComponents)
        var schemas: [String: JSONSchema] = [:]
        for component in components {
            schemas.merge(component.closure) { mine, _ in mine }
        }
        return schemas
    }

    /// `values` under component keys, in name order.
    static func componentDictionary<T>(_ values: [String: T]) -> OpenAPI.ComponentDictionary<T> {
        var dictionary = OpenAPI.ComponentDictionary<T>()
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let key = OpenAPI.ComponentKey(rawValue: name) else { continue }
            dictionary[key] = value
        }
        return dictionary
    }

    static func camelName(_ path: String) -> String {
        // A `{name}` segment reads "ByName": /v1/knowledge/items/{id} → KnowledgeItemsById.
        var parts = path.split(separator: "/").flatMap { segment -> [String] in
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                return ["by"]
                    + segment.dropFirst().dropLast().split(whereSeparator: { "-_".contains($0) }).map(String.init)
            }
            return segment.split(whereSeparator: { "-_".contains($0) }).map(String.init)
        }
        if parts.first == "v1" { parts.removeFirst() }
        return parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
