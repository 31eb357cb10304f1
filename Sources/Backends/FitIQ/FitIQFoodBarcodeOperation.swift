import Foundation
import Model

/// `fitiq.food_barcode`: the food with a barcode (`code`: 8 to 14 digits — EAN-8, UPC-A,
/// EAN-13, GTIN-14 — checked before any call) from `GET /api/v1/foods/barcode/{barcode}`, as
/// `FitIQDayNutrition.Food.answer` with source `barcode`. FitIQ's 404 is `not_found`.
public struct FitIQFoodBarcodeOperation: FitIQOperation {
    public init() {}
    public var name: String { "fitiq.food_barcode" }
    public var bodySchema: SchemaComponent { FitIQSchemas.food }
    /// A barcode names the same product for good; an hour still picks up a corrected value.
    public var defaultTTL: TimeInterval { 3600 }
    public var arguments: [OperationArgument] { [OperationArgument("code", .string, required: true)] }

    public func normalise(_ arguments: [String: ArgumentValue], clock: RequestClock) throws -> [String: ArgumentValue] {
        guard let code = arguments["code"]?.string, Self.isBarcode(code) else {
            throw ErrorDetail.badParameter("code must be a barcode of 8 to 14 digits")
        }
        return ["code": .string(code)]
    }

    static func isBarcode(_ code: String) -> Bool {
        (8...14).contains(code.count) && code.allSatisfy { $0.isASCII && $0.isNumber }
    }

    public func fetch(_ arguments: [String: ArgumentValue], context: OperationContext) async throws -> OperationOutput {
        let code = arguments["code"]?.string ?? ""
        let client = try FitIQClient.make(context)
        let value: JSONValue
        do {
            value = try await client.get(
                "/api/v1/foods/barcode/" + QueryString.pathSegment(code), notFoundIsAnswer: true)
        } catch let error as BackendError where error.kind == .rejected && error.status == 404 {
            throw BackendError(
                .notFound, backend: backend, message: "FitIQ knows no food with barcode \(code)", status: 404)
        }
        let food = try Self.food(value)
        await FitIQFoodCatalog.shared(context.sessions, baseURL: client.settings.endpoint.baseURL).remember([food])
        return try OperationOutput(encoding: food.answer(foundByBarcode: true))
    }

    /// The food of a `/api/v1/foods/barcode/…` answer.
    static func food(_ value: JSONValue) throws -> FitIQDayNutrition.Food {
        guard let food = FitIQDayNutrition.Food(value), food.id != nil else {
            throw BackendError(
                .badResponse, backend: FitIQClient.backend, message: "FitIQ sent a food without an id or calories")
        }
        return food
    }
}
