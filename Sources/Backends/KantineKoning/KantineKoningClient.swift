import Foundation
import Model

/// Kantine Koning over HTTP (docs/backends/kantinekoning.md): one opaque Bearer token per
/// enrollment, each call made with its own enrollment's token. A refusal that ends the
/// enrollment in the club app (`invalid_token`, `device_not_found`, `token_revoked` for a reason
/// other than season_ended) marks that enrollment invalid until its token changes;
/// `token_revoked` with reason `season_ended` marks the tenant's season over until its tokens
/// change — a new season needs a new enrollment (`KantineKoningSeasons`, remembered in the
/// vault). Any other
/// 401 is an ordinary failure of that call, tried again on the next refresh, as in the app.
public struct KantineKoningClient: Sendable {
    public static let backend = "kantinekoning"
    static let prefix = "/api/mobile/v1"
    public var settings: KantineKoningSettings
    public var http: UpstreamHTTP
    /// The enrollment marks' vault: remembered in memory, as only this process writes them and
    /// every call to an enrollment reads two.
    private let marks: any CredentialVault
    private let profile: String
    private let now: Date

    public init(settings: KantineKoningSettings, context: OperationContext) {
        self.settings = settings
        self.http = context.http
        self.marks = Self.marks(context)
        self.profile = context.profileName
        self.now = context.now
    }

    /// The vault the enrollment marks are read and written through (one per gateway).
    static func marks(_ context: OperationContext) -> any CredentialVault {
        let vault = context.vault
        return context.sessions.shared("kantinekoning|marks") { RememberedVault(vault) }
    }

    /// The profile's client, with the config's enrollments followed by those `daygate connect
    /// kantinekoning` kept in the vault.
    static func make(_ context: OperationContext) async throws -> KantineKoningClient {
        guard let configured = context.profile.kantinekoning else {
            throw BackendError(
                .notConfigured, backend: backend,
                message: "Kantine Koning is not configured for profile \(context.profileName)")
        }
        let settings = await KantineKoningConnectedEnrollments.merged(configured, context: context)
        guard !settings.enrollments.isEmpty else {
            throw BackendError(
                .reauthRequired, backend: backend,
                message: "Kantine Koning has no enrollment for profile \(context.profileName) yet; "
                    + "run `daygate connect kantinekoning`", retryAfter: 60)
        }
        return KantineKoningClient(settings: settings, context: context)
    }

    public static func fingerprint(_ settings: KantineKoningSettings) -> String {
        CredentialFingerprint.of([settings.endpoint.baseURL] + settings.enrollments.map { $0.token.reveal() })
    }

    /// What one enrollment's call gave.
    enum EnrollmentResult: Sendable {
        case diensten([JSONValue])
        /// The token was refused: this enrollment (or with `seasonEnded`, its tenant) is out.
        case tokenRefused(code: String, message: String, seasonEnded: Bool)
        /// Not called: its season is over or its token was refused before.
        case skipped(code: String, message: String)
        case failed(BackendError)
    }

    var seasons: KantineKoningSeasons { KantineKoningSeasons(vault: marks, profile: profile) }

    /// Whether `enrollment` is called, and why not: a token refused before (until the token
    /// changes), or a season that ended (until the tenant's tokens change). Both marks are read
    /// at once (two vault reads in parallel, not in a row: this is on every cold fetch).
    func gate(_ enrollment: KantineKoningSettings.Enrollment) async -> (code: String, message: String)? {
        async let invalidMark = seasons.invalid(enrollment)
        async let seasonMark = seasons.mark(tenant: enrollment.tenant)
        if let invalid = await invalidMark {
            return (
                "enrollment_invalid",
                "\(invalid.message) (\(invalid.code), \(LenientDate.format(invalid.at, in: .gmt))); "
                    + "not called until its token changes"
            )
        }
        guard let mark = await seasonMark else { return nil }
        let ended = (
            "season_ended",
            "the season at \(enrollment.tenant) has ended; a new season needs a new enrollment "
                + "(`daygate connect kantinekoning`)"
        )
        switch mark.decide(tokens: KantineKoningSeasons.tokens(at: enrollment.tenant, in: settings)) {
        case .skip:
            return ended
        case .adopt:
            await seasons.markOver(tenant: enrollment.tenant, settings: settings, at: mark.markedAt ?? now)
            return ended
        case .clear:
            await seasons.clear(tenant: enrollment.tenant)
            return nil
        }
    }

    /// The diensten `enrollment` sees from now to `futureDays` ahead, and before that as far
    /// as the server looks back (its default: 365 days; the app sends no `past_days` and
    /// neither does the gateway: the caller keeps the window it asked for).
    func diensten(for enrollment: KantineKoningSettings.Enrollment, futureDays: Int) async -> EnrollmentResult {
        if let refusal = await gate(enrollment) {
            return .skipped(code: refusal.code, message: refusal.message)
        }
        let query = QueryString.encode([("tenant", enrollment.tenant), ("future_days", String(futureDays))])
        do {
            let value = try await get("/diensten?" + query, enrollment: enrollment)
            guard let rows = Self.dienstRows(value) else {
                // The app reports an error for it (its decoder requires `diensten`).
                return .failed(
                    BackendError(
                        .badResponse, backend: Self.backend,
                        message: "\(enrollment.label): Kantine Koning answered without a diensten list"))
            }
            return .diensten(rows)
        } catch let error as KantineKoningTokenError {
            await refused(enrollment, error)
            guard error.seasonEnded || error.endsEnrollment else { return .failed(error.ordinaryFailure(enrollment)) }
            return .tokenRefused(code: error.code, message: error.message, seasonEnded: error.seasonEnded)
        } catch let error as BackendError {
            return .failed(error)
        } catch {
            return .failed(
                BackendError(.unreachable, backend: Self.backend, message: "Kantine Koning could not be reached"))
        }
    }

    /// The rows of a `/diensten` answer (bare or wrapped); nil when it holds no list.
    static func dienstRows(_ value: JSONValue) -> [JSONValue]? {
        LenientList.items(in: value, keys: ["diensten", "data"])
    }

    /// Remembers a token refusal that lasts: the tenant's season, or this enrollment's token.
    /// Any other 401 is remembered by nothing (the next refresh asks again).
    func refused(_ enrollment: KantineKoningSettings.Enrollment, _ error: KantineKoningTokenError) async {
        if error.seasonEnded {
            await seasons.markOver(tenant: enrollment.tenant, settings: settings, at: now)
        } else if error.endsEnrollment {
            await seasons.markInvalid(
                enrollment, KantineKoningInvalidToken(code: error.code, message: error.message, at: now))
        }
    }

    /// GET with `enrollment`'s token; its calls are a source of their own (circuit, counters).
    func get(_ pathAndQuery: String, enrollment: KantineKoningSettings.Enrollment) async throws -> JSONValue {
        let response = try await http.send(
            url: settings.endpoint.baseURL + Self.prefix + pathAndQuery,
            headers: [("Authorization", "Bearer \(enrollment.token.reveal())")],
            timeout: settings.endpoint.timeout.seconds,
            source: UpstreamSource(profile: profile, backend: Self.backend, scope: enrollment.label)
        )
        if response.status == 401 {
            throw KantineKoningTokenError(body: response.body)
        }
        guard response.isSuccess else { throw UpstreamHTTP.error(for: response, backend: Self.backend) }
        guard let value = try? JSONValue(parsing: response.body) else {
            throw BackendError(
                .badResponse, backend: Self.backend, message: "Kantine Koning sent an answer that is not JSON")
        }
        return value
    }
}

/// A 401 from Kantine Koning, read the way the app reads it.
struct KantineKoningTokenError: Error {
    var code: String
    var message: String
    var seasonEnded: Bool
    /// The answer's `error` and `reason` as sent.
    var rawCode: String
    var reason: String?

    init(body: Data) {
        let value = try? JSONValue(parsing: body)
        let code = value?["error"]?.stringValue ?? "unauthorized"
        let reason = value?["reason"]?.stringValue
        self.rawCode = code
        self.reason = reason
        self.seasonEnded = code == "token_revoked" && reason == "season_ended"
        self.code = seasonEnded ? "season_ended" : code
        self.message =
            switch code {
            case "token_revoked":
                seasonEnded
                    ? "the club's season has ended" : "the enrollment token was revoked (\(reason ?? "no reason"))"
            case "invalid_token": "the enrollment token is not valid"
            case "device_not_found": "the club no longer knows this device"
            default: value?["message"]?.stringValue.map { BackendError.scrub($0) } ?? "the call was refused (401)"
            }
    }

    /// Whether the club app ends the enrollment for this refusal (`Repositories.swift`
    /// `extractTokenError`): `invalid_token`, `device_not_found`, or `token_revoked` for a reason
    /// other than season_ended (which ends the club's season instead). Any other 401 — another
    /// code, a body that is not JSON — is an ordinary error there, tried again on the next refresh.
    var endsEnrollment: Bool {
        !seasonEnded && ["invalid_token", "device_not_found", "token_revoked"].contains(rawCode)
    }

    /// A 401 that ends nothing, as the failure of this one call.
    func ordinaryFailure(_ enrollment: KantineKoningSettings.Enrollment) -> BackendError {
        BackendError(
            .rejected, backend: KantineKoningClient.backend,
            message:
                "\(enrollment.label): Kantine Koning refused the call (401, \(code)): \(message); tried again on the next refresh",
            status: 401, mayHaveArrived: false)
    }
}
