import Foundation
import Model

/// Time and id helpers in the shapes Node produces.
enum TickedifyTime {
    /// Milliseconds since 1970 (`Date.now()`).
    static func nowMs() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `Date.prototype.toISOString()`: `2026-11-22T03:07:48.499Z`.
    static func iso(_ ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        return Civil.isoString(seconds * Civil.microsPerSecond) + "." + Civil.pad(millis, 3) + "Z"
    }

    /// An HTTP date (`Tue, 24 Nov 2026 09:07:48 GMT`), as in a cookie's `Expires`.
    static func httpDate(_ ms: Int64) -> String {
        Civil.httpDate(ms >= 0 ? ms / 1000 : (ms - 999) / 1000)
    }

    /// `day` shifted by `offset` days.
    static func shift(_ day: String, _ offset: Int) -> String {
        guard let n = LocalDate(day)?.dayNumber else { return day }
        return LocalDate(dayNumber: n + offset).description
    }

    /// What Postgres makes of a text compared with a `DATE` column: `YYYY-MM-DD`, optionally followed
    /// by a time part; nil when it would raise "invalid input syntax for type date".
    static func pgDate(_ text: String) -> String? {
        let prefix = String(text.prefix(10))
        guard Civil.parseDay(prefix) != nil else { return nil }
        let rest = text.dropFirst(10)
        if rest.isEmpty { return prefix }
        guard let first = rest.first, first == "T" || first == " " || first == "t" else { return nil }
        return prefix
    }

    /// `n` in base 36, lowercase (`Number.prototype.toString(36)`).
    static func base36(_ n: UInt64) -> String {
        String(n, radix: 36)
    }

    /// `count` random base-36 characters (`Math.random().toString(36).substr(2, count)`).
    static func randomBase36(_ count: Int) -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<36)] })
    }

    /// A new task id, `task_<ms>_<9 base36>`.
    static func newTaskID(now: Int64) -> String {
        "task_\(now)_\(randomBase36(9))"
    }

    /// A new planning id: 9 random base-36 characters then `Date.now().toString(36)`.
    static func newPlanningID(now: Int64) -> String {
        randomBase36(9) + base36(UInt64(max(0, now)))
    }
}

/// One row of `taken`.
struct TickedifyTask: Sendable, Equatable {
    var id: String
    var tekst: String
    var aangemaakt: Int64
    var lijst: String
    var verschijndatum: String?
    var duur: Int?
    var type: String?
    var afgewerkt: Int64?
    var userId: String
    var opmerkingen: String?
    var topPrioriteit: Int?
    var prioriteitDatum: String?
    var prioriteit: String? = "gemiddeld"
    var verwijderdOp: Int64?
    var definitiefVerwijderenOp: Int64?
    var projectId: String?
    var contextId: String?
    var herhalingType: String?
    var herhalingWaarde: Int?
    var herhalingActief: Bool = false
    /// Rows in `bijlagen` pointing at this task.
    var bijlagen: Int = 0
    /// The row is in `taken_archief` (completed through the checkbox), not in `taken`.
    var archived = false
    /// `taken_archief.archived_at`: when the row was archived (the server's clock).
    var archivedAt: Int64?

    var isOpen: Bool { afgewerkt == nil && verwijderdOp == nil && !archived }

    /// `getList`'s row: `SELECT *` in column order, the five renamed columns deleted and re-added
    /// at the end, then `bijlagenCount`.
    func json(_ style: TickedifySimulator.DateStyle) -> JSONValue {
        func str(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        func int(_ i: Int?) -> JSONValue { i.map(JSONValue.int) ?? .null }
        func time(_ t: Int64?) -> JSONValue { t.map { .string(TickedifyTime.iso($0)) } ?? .null }
        return .object([
            "id": .string(id),
            "tekst": .string(tekst),
            "aangemaakt": .string(TickedifyTime.iso(aangemaakt)),
            "lijst": .string(lijst),
            "verschijndatum": TickedifyDates.json(verschijndatum, style),
            "duur": int(duur),
            "type": str(type),
            "afgewerkt": time(afgewerkt),
            "user_id": .string(userId),
            "opmerkingen": str(opmerkingen),
            "top_prioriteit": int(topPrioriteit),
            "prioriteit_datum": TickedifyDates.json(prioriteitDatum, style),
            "prioriteit": str(prioriteit),
            "verwijderd_op": time(verwijderdOp),
            "definitief_verwijderen_op": time(definitiefVerwijderenOp),
            "projectId": str(projectId),
            "contextId": str(contextId),
            "herhalingType": str(herhalingType),
            "herhalingWaarde": int(herhalingWaarde),
            "herhalingActief": .bool(herhalingActief),
            "bijlagenCount": .int(bijlagen),
        ])
    }
}

extension TickedifyTask {
    /// An `afgewerkte-taken` row: `SELECT *` from `taken_archief`, so the row as it was in `taken`
    /// (its old `lijst`, `acties` or `inbox`, not `afgewerkt`) with the snake_case column names in
    /// column order, then `archived_at`, then `bijlagenCount` (recorded: 039, 050, 085, 088).
    func archiveJSON(_ style: TickedifySimulator.DateStyle) -> JSONValue {
        func str(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        func int(_ i: Int?) -> JSONValue { i.map(JSONValue.int) ?? .null }
        func time(_ t: Int64?) -> JSONValue { t.map { .string(TickedifyTime.iso($0)) } ?? .null }
        return .object([
            "id": .string(id),
            "tekst": .string(tekst),
            "aangemaakt": .string(TickedifyTime.iso(aangemaakt)),
            "lijst": .string(lijst),
            "project_id": str(projectId),
            "verschijndatum": TickedifyDates.json(verschijndatum, style),
            "context_id": str(contextId),
            "duur": int(duur),
            "type": str(type),
            "afgewerkt": time(afgewerkt),
            "user_id": .string(userId),
            "herhaling_type": str(herhalingType),
            "herhaling_waarde": int(herhalingWaarde),
            "herhaling_actief": .bool(herhalingActief),
            "opmerkingen": str(opmerkingen),
            "top_prioriteit": int(topPrioriteit),
            "prioriteit_datum": TickedifyDates.json(prioriteitDatum, style),
            "prioriteit": str(prioriteit),
            "verwijderd_op": time(verwijderdOp),
            "definitief_verwijderen_op": time(definitiefVerwijderenOp),
            "archived_at": time(archivedAt),
            "bijlagenCount": .int(bijlagen),
        ])
    }
}

/// One row of `projecten`.
struct TickedifyProject: Sendable, Equatable {
    var id: String
    var naam: String
    var aangemaakt: Int64
    var userId: String
    var dueDate: String?
    var opmerkingen: String?

    func json(_ style: TickedifySimulator.DateStyle) -> JSONValue {
        .object([
            "id": .string(id),
            "naam": .string(naam),
            "aangemaakt": .string(TickedifyTime.iso(aangemaakt)),
            "user_id": .string(userId),
            "due_date": TickedifyDates.json(dueDate, style),
            "opmerkingen": opmerkingen.map(JSONValue.string) ?? .null,
        ])
    }
}

/// One row of `contexten`.
struct TickedifyContext: Sendable, Equatable {
    var id: String
    var naam: String
    var aangemaakt: Int64
    var userId: String

    var json: JSONValue {
        .object([
            "id": .string(id),
            "naam": .string(naam),
            "aangemaakt": .string(TickedifyTime.iso(aangemaakt)),
            "user_id": .string(userId),
        ])
    }
}

/// One row of `dagelijkse_planning`.
struct TickedifyPlanItem: Sendable, Equatable {
    var id: String
    var actieId: String?
    var datum: String
    var uur: Int
    var positie: Int
    var type: String
    var naam: String?
    var duurMinuten: Int
    var aangemaakt: Int64
    var userId: String

    /// `getDagelijksePlanning`'s mapping, joined with the linked task.
    func json(task: TickedifyTask?, _ style: TickedifySimulator.DateStyle) -> JSONValue {
        .object([
            "id": .string(id),
            "actieId": actieId.map(JSONValue.string) ?? .null,
            "datum": TickedifyDates.json(datum, style),
            "uur": .int(uur),
            "positie": .int(positie),
            "type": .string(type),
            "naam": naam.map(JSONValue.string) ?? .null,
            "duurMinuten": .int(duurMinuten),
            "aangemaakt": .string(TickedifyTime.iso(aangemaakt)),
            "actieTekst": task.map { .string($0.tekst) } ?? .null,
            "projectId": task?.projectId.map(JSONValue.string) ?? .null,
            "contextId": task?.contextId.map(JSONValue.string) ?? .null,
            "actieDuur": task?.duur.map(JSONValue.int) ?? .null,
        ])
    }
}

enum TickedifyDates {
    /// A `DATE` value as node-pg hands it to `res.json`.
    static func json(_ day: String?, _ style: TickedifySimulator.DateStyle) -> JSONValue {
        guard let day else { return .null }
        switch style {
        case .utcMidnight: return .string(day + "T00:00:00.000Z")
        case .plainDate: return .string(day)
        }
    }
}

/// A server-side session (`user_sessions` row).
struct TickedifySession: Sendable {
    var sid: String
    /// The cookie signature the client must present with `sid`.
    var signature: String
    var userId: String
    var userEmail: String
    var userNaam: String
    /// Server-side expiry; every authenticated request pushes it 24 h ahead (express-session touch).
    var expiresAt: Int64

    /// The `Set-Cookie` value for a cookie expiring at `cookieExpires`.
    func setCookie(cookieExpires: Int64) -> String {
        "\(TickedifyCookies.name)=\(TickedifyCookies.encodeURIComponent("s:" + sid + "." + signature)); Path=/; "
            + "Expires=\(TickedifyTime.httpDate(cookieExpires)); HttpOnly; SameSite=Lax"
    }
}

enum TickedifyCookies {
    static let name = "tickedify.sid"
    static let maxAgeMs: Int64 = 24 * 3600 * 1000

    /// `uid-safe(24)`: 32 base64url characters.
    static func newSessionID() -> String {
        base64(randomBytes(24), url: true)
    }

    /// A cookie-signature HMAC lookalike: 43 base64 characters without padding.
    static func newSignature() -> String {
        base64(randomBytes(32), url: false)
    }

    static func randomBytes(_ n: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
    }

    static func base64(_ bytes: [UInt8], url: Bool) -> String {
        var s = Data(bytes).base64EncodedString()
        while s.hasSuffix("=") { s.removeLast() }
        if url {
            s = s.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return s
    }

    /// JavaScript's `encodeURIComponent`.
    static func encodeURIComponent(_ s: String) -> String {
        pythonQuote(s, safe: "!'()*")
    }

    /// The `cookie` package's `parse`: first occurrence of a name wins, values percent-decoded when
    /// they contain `%`, surrounding double quotes removed.
    static func value(named name: String, in headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let key = pair[..<eq].trimmingCharacters(in: .whitespaces)
                guard key == name else { continue }
                var value = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                return value.contains("%") ? percentDecode(value, plusAsSpace: false) : value
            }
        }
        return nil
    }

    /// Splits a cookie value `s:<sid>.<signature>`; nil for an unsigned or malformed value.
    static func unsign(_ value: String) -> (sid: String, signature: String)? {
        guard value.hasPrefix("s:") else { return nil }
        let signed = value.dropFirst(2)
        guard let dot = signed.lastIndex(of: ".") else { return nil }
        return (String(signed[..<dot]), String(signed[signed.index(after: dot)...]))
    }
}
