import Model

/// One credential's verdict in `daygate check`.
public struct CredentialCheck: Sendable, Equatable {
    /// What was checked when a backend has several (a Kantine Koning enrollment's label).
    public var scope: String?
    public var ok: Bool
    /// A sentence for a person; never a secret.
    public var message: String

    public init(scope: String? = nil, ok: Bool, message: String) {
        self.scope = scope
        self.ok = ok
        self.message = message
    }

    /// The verdict for a call that threw `error`.
    public static func failure(_ error: any Error, scope: String? = nil, backend: String) -> CredentialCheck {
        if let error = error as? BackendError {
            return CredentialCheck(scope: scope, ok: false, message: error.message)
        }
        if let error = error as? ConnectError {
            return CredentialCheck(scope: scope, ok: false, message: error.message)
        }
        return CredentialCheck(scope: scope, ok: false, message: "\(backend) could not be asked (\(type(of: error)))")
    }
}
