import Foundation
import Model

/// Kantine Koning over HTTP (docs/backends/kantinekoning.md): one opaque Bearer token per
/// enrollment, each call made with its own enrollment's token. A token refused on one
/// enrollment marks that enrollment; `token_revoked` with reason `season_ended` marks the
/// tenant's season over (remembered in the vault, so its enrollments are skipped from then on).
public struct KantineKoningClient: Sendable {
    public static let backend = "kantinekoning"
    static let prefix = "/api/mobile/v1"
    public var settings: KantineKoningSettings
    public var http: UpstreamHTTP
    private let vault: any CredentialVault
    private let profile: String

    public init(settings: KantineKoningSettings, context: OperationContext) {
        self.settings = settings
        self.http = context.http
        self.vault = context.vault
        self.profile = context.profileName
    }

    /// The profile's client, with the config's enrollments followed by those `daygate connect
    /// kantinekoning` kept in the vault.
    static func make(_ context: OperationContext) async throws -> KantineKoningClient {
        guard let configured = context.profile.kantinekoning else {
            throw BackendError(
                .notConfigured, backend: backend,
                message: "Kantine Koning is not configured for profile \(context.profileName)")
        }
        let settings = await KantineKoningConnectedEnrollments.merged(
            configured, vault: context.vault, profile: context.profileName)
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
        case failed(BackendError)
    }

    var seasons: KantineKoningSeasons { KantineKoningSeasons(vault: vault, profile: profile) }

    func isSeasonOver(_ tenant: String) async -> Bool {
        await seasons.isOver(tenant: tenant)
    }

    func diensten(for enrollment: KantineKoningSettings.Enrollment, pastDays: Int, futureDays: Int) async
        -> EnrollmentResult
    {
        let query = QueryString.encode([
            ("tenant", enrollment.tenant), ("past_days", String(pastDays)), ("future_days", String(futureDays)),
        ])
        do {
            let value = try await get("/diensten?" + query, enrollment: enrollment)
            return .diensten(LenientList.items(in: value, keys: ["diensten", "data"]) ?? [])
        } catch let error as KantineKoningTokenError {
            if error.seasonEnded { await seasons.markOver(tenant: enrollment.tenant) }
            return .tokenRefused(code: error.code, message: error.message, seasonEnded: error.seasonEnded)
        } catch let error as BackendError {
            return .failed(error)
        } catch {
            return .failed(
                BackendError(.unreachable, backend: Self.backend, message: "Kantine Koning could not be reached"))
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
        guard let value = try? JSONCoding.decoder.decode(JSONValue.self, from: response.body) else {
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
        let value = try? JSONCoding.decoder.decode(JSONValue.self, from: body)
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
            default: value?["message"]?.stringValue.map { BackendError.scrub($0) } ?? "the enrollment token was refused"
            }
    }
}
