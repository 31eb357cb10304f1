import Foundation
import Model

/// The one-time enrollment token the app builds itself for a member without e-mail: the
/// base64 of the unsigned JSON `{"tenant_slug","tenant_name","team_codes":[team ids],
/// "role":"member","purpose":"device-enroll","exp":now+600,"jti":UUID,"max_uses":1}`, sent to
/// `POST /enrollments/register`. The server accepts it as it accepts the e-mailed ones.
public struct KantineKoningEnrollmentToken: Sendable, Equatable {
    public var tenantSlug: String
    public var tenantName: String
    public var teamIDs: [String]
    public var expires: Date
    public var jti: String

    public init(tenantSlug: String, tenantName: String, teamIDs: [String], now: Date, jti: String = UUID().uuidString) {
        self.tenantSlug = tenantSlug
        self.tenantName = tenantName
        self.teamIDs = teamIDs
        self.expires = now.addingTimeInterval(600)
        self.jti = jti
    }

    /// The token text.
    public var encoded: String {
        let object: JSONValue = .object([
            "tenant_slug": .string(tenantSlug), "tenant_name": .string(tenantName),
            "team_codes": .array(teamIDs.map(JSONValue.string)), "role": .string("member"),
            "purpose": .string("device-enroll"), "exp": .number(Double(Int(expires.timeIntervalSince1970))),
            "jti": .string(jti), "max_uses": .number(1),
        ])
        return ((try? JSONCoding.encode(object)) ?? Data()).base64EncodedString()
    }

    /// The token in what a person pasted from the e-mail: a link with `token=…` (or ending in the
    /// token), or the token itself.
    public static func token(inPasted text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if let components = URLComponents(string: trimmed), components.scheme != nil {
            if let value = components.queryItems?.first(where: { $0.name == "token" || $0.name == "enrollment_token" })?
                .value, !value.isEmpty
            {
                return value
            }
            let last = components.path.split(separator: "/").last.map(String.init)
            return last?.isEmpty == false ? last : nil
        }
        return trimmed.contains(where: \.isWhitespace) ? nil : trimmed
    }
}
