import Foundation
import Model

/// Cache entries a write made wrong: those of one operation (for the writing profile) whose
/// typed arguments match. The gateway drops them and tells live dashboards.
public struct CacheInvalidation: Sendable {
    public var operation: String
    public var matches: @Sendable ([String: ArgumentValue]) -> Bool

    public init(
        _ operation: String, where matches: @escaping @Sendable ([String: ArgumentValue]) -> Bool = { _ in true }
    ) {
        self.operation = operation
        self.matches = matches
    }

    /// Every entry of `operation`.
    public static func all(_ operation: String) -> CacheInvalidation { CacheInvalidation(operation) }
}
