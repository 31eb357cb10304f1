import Foundation
import Model

/// The one-time enrollment token the app builds itself for a member without e-mail: the
/// base64 of the unsigned JSON `{"tenant_slug","tenant_name","team_codes":[team codes],
/// "role":"member","purpose":"device-enroll","exp":now+600,"jti":UUID,"max_uses":1}`, sent to
/// `POST /enrollments/register`. The server accepts it as it accepts the e-mailed ones. The
/// teams go by their code, and by id only when a team has no code — as the app sends them
/// (`OnboardingHostView.registerMember`: "Use team codes, not IDs for backend").
public struct KantineKoningEnrollmentToken: Sendable, Equatable {
    public var tenantSlug: String
    public var tenantName: String
    public var teamCodes: [String]
    public var expires: Date
    public var jti: String

    public init(
        tenantSlug: String, tenantName: String, teamCodes: [String], now: Date, jti: String = UUID().uuidString
    ) {
        self.tenantSlug = tenantSlug
        self.tenantName = tenantName
        self.teamCodes = teamCodes
        self.expires = now.addingTimeInterval(600)
        self.jti = jti
    }

    /// The token text.
    public var encoded: String {
        let object: JSONValue = .object([
            "tenant_slug": .string(tenantSlug), "tenant_name": .string(tenantName),
            "team_codes": .array(teamCodes.map(JSONValue.string)), "role": .string("member"),
            "purpose": .string("device-enroll"), "exp": .number(Double(Int(expires.timeIntervalSince1970))),
            "jti": .string(jti), "max_uses": .number(1),
        ])
        return ((try? JSONCoding.encode(object)) ?? Data()).base64EncodedString()
    }

    /// The token in what a person pasted from the e-mail, read as the app reads its links
    /// (`DeepLink.isEnrollment` and `extractToken`): only an enrollment link counts —
    /// `kantinekoning://device-enroll…`, or a kantinekoning.com address whose path holds
    /// `device-enroll` — `&amp;` (the e-mail's HTML) becomes `&` first, then the `token` query
    /// parameter is the token. A link without one, another link, or a link that cannot be read
    /// has none (nil: never sent whole as a token). Text without a scheme is the token itself.
    public static func token(inPasted text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isWhitespace) else { return nil }
        let normalised = trimmed.replacingOccurrences(of: "&amp;", with: "&")
        if let components = URLComponents(string: normalised), components.scheme != nil {
            guard isEnrollmentLink(components),
                let value = components.queryItems?.first(where: { $0.name == "token" })?.value, !value.isEmpty
            else { return nil }
            return value
        }
        // Something shaped like a link that URLComponents cannot read is no token either.
        guard !normalised.contains("://"), !normalised.lowercased().hasPrefix("kantinekoning:") else { return nil }
        return trimmed
    }

    /// The app's `DeepLink.isEnrollment`.
    static func isEnrollmentLink(_ components: URLComponents) -> Bool {
        (components.scheme?.lowercased() == "kantinekoning" && components.host == "device-enroll")
            || (components.host?.lowercased().contains("kantinekoning.com") == true
                && components.path.contains("device-enroll"))
    }
}
