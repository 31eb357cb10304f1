import Foundation
import Logging
import Model

/// The text of what was captured through daygate, per account: PRSNL keeps a capture's text in
/// `raw_content`, which none of its item reads returns (`GET /api/items/{id}` answers
/// `processed_content` as `content`, and a capture is never given one), so a note captured
/// through daygate would show no text — in PRSNL's own web app neither. daygate keeps the text
/// it sent, in the state database's vault (mode 0600) under the account's scope, and shows it as
/// the item's `content` while PRSNL gives none. Bounded: the newest ``kept`` captures of an
/// account; an older one's text is dropped when a new one is kept.
actor PRSNLCapturedNotes {
    static let kept = 200
    static let indexName = "captured_notes"

    private let vault: any CredentialVault
    private let scope: String

    init(vault: any CredentialVault, scope: String) {
        self.vault = vault
        self.scope = scope
    }

    /// The keeper of `scope`'s captures, shared by every request of that account (its index is
    /// read and written by one at a time).
    static func shared(_ context: OperationContext, scope: AccountScope) -> PRSNLCapturedNotes {
        context.sessions.shared("prsnl|captured-notes|\(scope)") {
            PRSNLCapturedNotes(vault: context.vault, scope: scope.description)
        }
    }

    static func name(_ id: String) -> String { "captured_note." + id.lowercased() }

    /// Keeps `text` as item `id`'s.
    func remember(_ text: String, item id: String) async throws {
        let index = await vault.value(profile: scope, backend: PRSNLClient.backend, name: Self.indexName)
        let next = Self.index(index, adding: id.lowercased())
        try await vault.setValue(text, profile: scope, backend: PRSNLClient.backend, name: Self.name(id))
        try await vault.setValue(next.index, profile: scope, backend: PRSNLClient.backend, name: Self.indexName)
        for dropped in next.dropped {
            try await vault.setValue(nil, profile: scope, backend: PRSNLClient.backend, name: Self.name(dropped))
        }
    }

    /// The text captured as item `id`, if it was captured through daygate.
    func text(of id: String) async -> String? {
        await vault.value(profile: scope, backend: PRSNLClient.backend, name: Self.name(id))
    }

    /// The index (ids, newest last, one a line) after adding `id`, and the ids it no longer
    /// holds (beyond ``kept``).
    static func index(_ current: String?, adding id: String, kept: Int = kept) -> (index: String, dropped: [String]) {
        var ids = (current ?? "").split(separator: "\n").map(String.init).filter { $0 != id }
        ids.append(id)
        let dropped = Array(ids.dropLast(kept))
        return (ids.suffix(kept).joined(separator: "\n"), dropped)
    }
}
