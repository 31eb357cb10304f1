import Foundation
import Model

/// What the gateway remembers about enrollments that Kantine Koning refused, kept in the
/// vault (the one place that spells its keys):
///
/// - `season_ended:<tenant>` — a `token_revoked` answer with reason `season_ended`: the club's
///   season is over and its enrollments are not called again with those tokens. In the club
///   app a season end is final for the token (`AppStore.swift` `handleTokenRevocation` clears
///   it), and the server's season reset deletes the teams and diensten the token was for: a new
///   season needs a new enrollment. The mark holds when it was made and a fingerprint of the
///   tenant's tokens then (`KantineKoningSeasonMark`): a new token at the club (the next
///   season's enrollment, `daygate connect kantinekoning` or the config) clears it; the old
///   tokens are never tried again, so a new season's diensten never attach to an old
///   enrollment.
/// - `invalid_token:<fingerprint of the token>` — any other token refusal (`invalid_token`,
///   `device_not_found`, `token_revoked` for another reason), as the app marks that
///   enrollment invalid: it is not called again until its token changes (a new token has
///   another fingerprint) and `/v1/sources` shows why.
struct KantineKoningSeasons: Sendable {
    let vault: any CredentialVault
    let profile: String

    static func key(tenant: String) -> String { "season_ended:\(tenant)" }
    static func invalidKey(token: String) -> String { "invalid_token:\(CredentialFingerprint.of([token]))" }

    /// The fingerprint of the tokens of the enrollments at `tenant`.
    static func tokens(at tenant: String, in settings: KantineKoningSettings) -> String {
        CredentialFingerprint.of(settings.enrollments.filter { $0.tenant == tenant }.map { $0.token.reveal() }.sorted())
    }

    func mark(tenant: String) async -> KantineKoningSeasonMark? {
        await vault.value(profile: profile, backend: KantineKoningClient.backend, name: Self.key(tenant: tenant))
            .map(KantineKoningSeasonMark.init(record:))
    }

    /// Whether the season at `tenant` counts as over for the tokens configured now.
    func isOver(tenant: String, settings: KantineKoningSettings) async -> Bool {
        guard let mark = await mark(tenant: tenant) else { return false }
        return mark.tokens == Self.tokens(at: tenant, in: settings)
    }

    /// Remembers that `tenant`'s season ended (best effort: a vault that cannot write means
    /// the tenant is asked again next time, which answers the same refusal).
    func markOver(tenant: String, settings: KantineKoningSettings, at now: Date) async {
        let mark = KantineKoningSeasonMark(markedAt: now, tokens: Self.tokens(at: tenant, in: settings))
        try? await vault.setValue(
            mark.record, profile: profile, backend: KantineKoningClient.backend, name: Self.key(tenant: tenant))
    }

    func clear(tenant: String) async {
        try? await vault.setValue(
            nil, profile: profile, backend: KantineKoningClient.backend, name: Self.key(tenant: tenant))
    }

    /// Why `enrollment`'s token was refused, when it was (for this very token).
    func invalid(_ enrollment: KantineKoningSettings.Enrollment) async -> KantineKoningInvalidToken? {
        await vault.value(
            profile: profile, backend: KantineKoningClient.backend,
            name: Self.invalidKey(token: enrollment.token.reveal())
        ).flatMap { try? JSONCoding.decoder.decode(KantineKoningInvalidToken.self, from: Data($0.utf8)) }
    }

    func markInvalid(_ enrollment: KantineKoningSettings.Enrollment, _ refusal: KantineKoningInvalidToken) async {
        guard let data = try? JSONCoding.encode(refusal) else { return }
        try? await vault.setValue(
            String(decoding: data, as: UTF8.self), profile: profile, backend: KantineKoningClient.backend,
            name: Self.invalidKey(token: enrollment.token.reveal()))
    }
}

/// A token refusal that made an enrollment invalid: Kantine Koning's code, the gateway's
/// words for it, and when.
struct KantineKoningInvalidToken: Sendable, Codable, Equatable {
    var code: String
    var message: String
    var at: Date
}

/// A `season_ended:<tenant>` mark and what to do with it, without I/O.
struct KantineKoningSeasonMark: Sendable, Equatable {
    /// When it was made; nil for a mark of an older gateway (a bare `1`).
    var markedAt: Date?
    /// The fingerprint of the tenant's tokens when it was made; nil for an older mark.
    var tokens: String?

    init(markedAt: Date?, tokens: String?) {
        self.markedAt = markedAt
        self.tokens = tokens
    }

    /// `<unix seconds> <tokens fingerprint>`; anything else is an older mark.
    init(record: String) {
        let parts = record.split(separator: " ")
        if parts.count == 2, let seconds = Double(parts[0]) {
            self.init(markedAt: Date(timeIntervalSince1970: seconds), tokens: String(parts[1]))
        } else {
            self.init(markedAt: nil, tokens: nil)
        }
    }

    var record: String {
        "\(Int((markedAt ?? .distantPast).timeIntervalSince1970.rounded(.down))) \(tokens ?? "")"
    }

    enum Decision: Equatable {
        /// The season is over for these tokens: do not call.
        case skip
        /// The tokens changed since the mark (a new enrollment): forget it and call.
        case clear
        /// An older gateway's mark, which kept no tokens: keep skipping, and write it again with
        /// the tokens configured now, so that a new one clears it.
        case adopt
    }

    func decide(tokens current: String) -> Decision {
        guard let tokens else { return .adopt }
        return tokens == current ? .skip : .clear
    }
}
