import Foundation
import Model

/// Calendar subscriptions: ICS feeds a household follows (a school's calendar, public holidays,
/// a club's match schedule, the secret iCal address of a Google, Outlook or iCloud calendar).
///
/// ```yaml
/// ics:
///   timeout: 10s                # per fetch (default 10 s)
///   calendars:
///     - name: school            # lowercase letters, digits, - and _; unique
///       url: https://example.org/school.ics    # or /path/to/file.ics or file:///path
///       color: "#2e7d32"        # optional
///       refresh: 15m            # how often the feed is fetched again (default 15 min, at least 1 min)
///       username: anna          # optional HTTP Basic, with password
///       password: ${file:/etc/daygate/school-password}
///       token: ${file:/etc/daygate/work-token}  # or a Bearer token instead
/// ```
///
/// The URL is a `Secret`: a calendar's secret address carries its key in the path, so it is
/// redacted from logs and answers like a password.
public struct ICSSettings: BackendSettings, Hashable {
    public static let backend = "ics"
    /// A section that loads, for the suites that cover every backend (`BackendSettings.sample`).
    public static let sample = BackendSettingsSample(
        yaml: """
            calendars:
              - name: work
                url: https://calendar.example/private-ics-key-1/basic.ics
                token: ics-bearer-token-1
            """,
        secrets: ["https://calendar.example/private-ics-key-1/basic.ics", "ics-bearer-token-1"])

    /// One subscribed calendar.
    public struct Calendar: Sendable, Hashable, Codable, ConfigEncodable {
        public var name: String
        public var url: Secret
        public var color: String?
        public var refresh: ConfigDuration
        public var username: String?
        public var password: Secret?
        public var token: Secret?

        public static let defaultRefresh = ConfigDuration.seconds(900)
        public static let minimumRefresh: Double = 60

        public init(
            name: String, url: String, color: String? = nil, refresh: ConfigDuration = defaultRefresh,
            username: String? = nil, password: Secret? = nil, token: Secret? = nil
        ) {
            self.name = name
            self.url = Secret(url)
            self.color = color
            self.refresh = refresh
            self.username = username
            self.password = password
            self.token = token
        }

        enum CodingKeys: String, CodingKey {
            case name, url, color, refresh, username, password, token
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            url = try container.decode(Secret.self, forKey: .url)
            color = try container.decodeIfPresent(String.self, forKey: .color)
            refresh = try container.decodeIfPresent(ConfigDuration.self, forKey: .refresh) ?? Self.defaultRefresh
            username = try container.decodeIfPresent(String.self, forKey: .username)
            password = try container.decodeIfPresent(Secret.self, forKey: .password)
            token = try container.decodeIfPresent(Secret.self, forKey: .token)
            func refuse(_ key: CodingKeys, _ reason: String) -> DecodingError {
                DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: reason)
            }
            guard !name.isEmpty, name.count <= 40,
                name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") })
            else { throw refuse(.name, "a calendar name is 1 to 40 lowercase letters, digits, - and _") }
            guard source != nil else {
                throw refuse(.url, "expected an http:// or https:// URL, a file:// URL or an absolute file path")
            }
            if let color, !Self.isColor(color) { throw refuse(.color, "expected a colour such as #2e7d32 or #fa0") }
            guard refresh.seconds >= Self.minimumRefresh else { throw refuse(.refresh, "must be at least 1m") }
            if token != nil, username != nil || password != nil {
                throw refuse(.token, "give username and password (Basic) or token (Bearer), not both")
            }
            if (username == nil) != (password == nil) {
                throw refuse(username == nil ? .password : .username, "HTTP Basic needs both username and password")
            }
            if case .file = source, username != nil || token != nil {
                throw refuse(.url, "a local file takes no credentials")
            }
        }

        /// Where the feed comes from.
        public enum Source: Sendable, Hashable {
            case http(URL)
            case file(String)
        }

        public var source: Source? {
            let text = url.reveal().trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("/") { return .file(text) }
            guard let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased() else { return nil }
            if scheme == "file" { return parsed.path.hasPrefix("/") ? .file(parsed.path) : nil }
            guard scheme == "http" || scheme == "https", parsed.host != nil else { return nil }
            return .http(parsed)
        }

        /// `scheme://host[:port]` of a feed on the web (nil for a file).
        public var origin: String? {
            guard case .http(let url)? = source, let scheme = url.scheme, let host = url.host else { return nil }
            return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
        }

        /// How the calendar is reached, for people: `https://example.org/…` (never the path,
        /// which may hold the feed's secret) or `file`.
        public var shownSource: String {
            if let origin { return origin + "/…" }
            return source == nil ? "invalid" : "file"
        }

        /// A fingerprint of where the feed is and the credential it is fetched with (never
        /// the secrets themselves): another address or account is another feed.
        public var fingerprint: String {
            CredentialFingerprint.of([
                url.reveal(), username ?? "", password?.reveal() ?? "", token?.reveal() ?? "",
            ])
        }

        /// `none`, `basic` or `bearer`.
        public var auth: String { token != nil ? "bearer" : username != nil ? "basic" : "none" }

        static func isColor(_ text: String) -> Bool {
            guard text.first == "#", text.count == 4 || text.count == 7 else { return false }
            return text.dropFirst().allSatisfy(\.isHexDigit)
        }
    }

    public var calendars: [Calendar]
    /// The longest one fetch may take.
    public var timeout: ConfigDuration

    public static let defaultTimeout = ConfigDuration.seconds(10)
    public static let maximumCalendars = 50

    public init(calendars: [Calendar], timeout: ConfigDuration = defaultTimeout) {
        self.calendars = calendars
        self.timeout = timeout
    }

    enum CodingKeys: String, CodingKey { case calendars, timeout }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        calendars = try container.decode([Calendar].self, forKey: .calendars)
        timeout = try container.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? Self.defaultTimeout
        guard !calendars.isEmpty, calendars.count <= Self.maximumCalendars else {
            throw DecodingError.dataCorruptedError(
                forKey: .calendars, in: container, debugDescription: "give 1 to \(Self.maximumCalendars) calendars")
        }
        let names = calendars.map(\.name)
        if let duplicate = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw DecodingError.dataCorruptedError(
                forKey: .calendars, in: container, debugDescription: "two calendars are named \(duplicate)")
        }
        guard timeout.seconds > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeout, in: container, debugDescription: "must be more than 0")
        }
    }

    /// The web servers of the calendars (one connection pool each).
    public var endpoints: [BackendEndpoint] {
        calendars.compactMap { calendar in calendar.origin.map { BackendEndpoint(baseURL: $0, timeout: timeout) } }
    }

    public func calendar(named name: String) -> Calendar? { calendars.first { $0.name == name } }

    /// Every calendar's name and `fingerprint`: the cache keeps the answers of another set of
    /// calendars apart.
    public var fingerprint: String {
        CredentialFingerprint.of(calendars.flatMap { [$0.name, $0.fingerprint] })
    }
}
