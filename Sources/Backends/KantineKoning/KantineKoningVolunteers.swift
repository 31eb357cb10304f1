import Foundation
import Model
import NIOHTTP1

/// Adding and removing a volunteer on a Kantine Koning dienst (docs/backends/kantinekoning.md, "Calls daygate makes":
/// `POST /diensten/{id}/volunteer?tenant=<slug>` `{"naam"}` and
/// `DELETE /diensten/{id}/volunteer?tenant=<slug>&naam=<name>`, both answering `{"dienst":Dienst}`).
///
/// The app's rules, checked by the gateway before anything is written:
/// - the dienst is looked up in the diensten of every enrollment (fresh, not from the cache),
///   so it is normalised exactly like a read; no enrollment sees it → 404;
/// - the call uses the token of the enrollment that manages the dienst's team (the app's
///   `authTokenForTeam`: the enrollment whose teams include it, which is one that sees it, since
///   the server filters diensten by the token's teams); only member enrollments see it, or it is
///   an open dienst without a team → 403 ("managers only");
/// - future diensten only: one that has started (or ended) → 409;
/// - names are trimmed, 1 to 15 characters, no control characters → else 400; adding a name that
///   is already there → 409; removing a name that is not there → 404 (a longer name may be
///   removed when it is there, e.g. typed in by the club's own admin). Names are compared
///   exactly, as the app does (its duplicate check is case-sensitive, so "Jan" and "jan" can
///   both be on a dienst, and its delete sends the name as shown): removing "jan" never removes
///   "Jan".
///
/// Changes to one dienst run one at a time, whichever household profile makes them (the
/// duplicate check and the write stay together: two profiles managing one team cannot both add
/// "Piet"); the call goes through a manager enrollment at the dienst's own club.
/// The write is sent once: no retry after a timeout or a 5xx. An upstream refusal (4xx) is a
/// `BackendError` `.rejected` with the upstream status and its scrubbed message.
public enum KantineKoningVolunteers {
    public static let maximumNameLength = 15
    /// How far back and ahead the lookup reads (the server's own default look-back is 365 days).
    static let lookupDays = KantineKoningDienstenOperation.maximumDays
    static let queue = KeyedSerialQueue()

    /// `tenant`: the dienst's club, needed only when its id is seen at more than one.
    public static func add(name: String, toDienst id: String, tenant: String? = nil, context: OperationContext)
        async throws -> Dienst
    {
        try await change(name: name, dienstID: id, tenant: tenant, add: true, context: context)
    }

    public static func remove(name: String, fromDienst id: String, tenant: String? = nil, context: OperationContext)
        async throws -> Dienst
    {
        try await change(name: name, dienstID: id, tenant: tenant, add: false, context: context)
    }

    // MARK: -

    static func change(
        name rawName: String, dienstID rawID: String, tenant: String?, add: Bool, context: OperationContext
    ) async throws -> Dienst {
        let id = rawID.trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty, id.count <= 100, !id.unicodeScalars.contains(where: isControl) else {
            throw WriteRefusal.badInput("the dienst id must be 1 to 100 characters")
        }
        let name = rawName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw WriteRefusal.badInput("name must not be empty") }
        if let refusal = WriteRefusal.controlCharacter(in: name, field: "name") { throw refusal }
        // A longer name may still be removed when it is there (checked once the dienst is read).
        guard name.count <= (add ? maximumNameLength : 100) else {
            throw WriteRefusal.badInput("name must be 1 to \(maximumNameLength) characters (after trimming)")
        }
        let client = try await KantineKoningClient.make(context)
        let key = [client.settings.endpoint.baseURL, id].joined(separator: "|")
        return try await queue.run(key, backend: KantineKoningSettings.backend) {
            let target = try await locate(id, tenant: tenant, client: client, context: context)
            return try await write(name: name, add: add, target: target, client: client, context: context)
        }
    }

    /// The dienst as the reads show it, and the manager enrollment that may change it.
    struct Target {
        var dienst: Dienst
        var enrollment: KantineKoningSettings.Enrollment
    }

    static func locate(_ id: String, tenant: String? = nil, client: KantineKoningClient, context: OperationContext)
        async throws -> Target
    {
        let enrollments = client.settings.enrollments.filter { tenant == nil || $0.tenant == tenant }
        let days = lookupDays
        let results = await withTaskGroup(of: (Int, KantineKoningClient.EnrollmentResult).self) { group in
            for (index, enrollment) in enrollments.enumerated() {
                group.addTask { (index, await client.diensten(for: enrollment, futureDays: days)) }
            }
            var collected: [(Int, KantineKoningClient.EnrollmentResult)] = []
            for await result in group { collected.append(result) }
            return collected.sorted { $0.0 < $1.0 }
        }
        var seeing: [(KantineKoningSettings.Enrollment, [JSONValue])] = []
        var failed: [(KantineKoningSettings.Enrollment, BackendError)] = []
        var refused: [String] = []
        for (index, result) in results {
            let enrollment = enrollments[index]
            switch result {
            case .diensten(let rows):
                let matching = rows.filter { LenientFields($0)?.string("id") == id }
                if !matching.isEmpty { seeing.append((enrollment, matching)) }
            case .tokenRefused(_, let message, _), .skipped(_, let message):
                refused.append("\(enrollment.label): \(message)")
            case .failed(let error):
                failed.append((enrollment, error))
            }
        }
        let shown = String(id.prefix(64))
        let found = KantineKoningDienstenOperation.merge(seeing, zone: context.timeZone, now: context.now)
        guard found.count <= 1 else {
            throw WriteRefusal.conflict(
                "dienst \(shown) is at more than one club (\(found.map(\.tenant).joined(separator: ", "))); say which with ?tenant="
            )
        }
        guard let dienst = found.first else {
            // Not knowing is not "not there": an enrollment that could not be read may see it.
            if let error = failed.first?.1 { throw error }
            let note = refused.isEmpty ? "" : " (not asked: \(refused.joined(separator: "; ")))"
            throw WriteRefusal.notFound("no enrollment sees dienst \(shown)\(note)")
        }
        guard dienst.team != nil else {
            throw WriteRefusal.forbidden(
                "dienst \(shown) is open (no team has claimed it); only the manager of its team can change its volunteers"
            )
        }
        // The app writes with the dienst's own club and checks the role there.
        guard let manager = seeing.map(\.0).first(where: { $0.role == "manager" && $0.tenant == dienst.tenant }) else {
            // A manager enrollment at that club that could not be read may be the one.
            if let error = failed.first(where: { $0.0.role == "manager" && $0.0.tenant == dienst.tenant })?.1 {
                throw error
            }
            throw WriteRefusal.forbidden(
                "only a manager of the dienst's team can change its volunteers; the enrollments that see dienst \(shown) are members"
            )
        }
        return Target(dienst: dienst, enrollment: manager)
    }

    static func write(
        name: String, add: Bool, target: Target, client: KantineKoningClient, context: OperationContext
    ) async throws -> Dienst {
        let dienst = target.dienst
        guard let start = LenientDate.parse(dienst.start) else {
            throw BackendError(
                .badResponse, backend: KantineKoningClient.backend,
                message: "Kantine Koning sent a dienst without a start time")
        }
        guard start > context.now else {
            throw WriteRefusal.conflict(
                "volunteers can only be changed for future diensten; this one started at \(dienst.start)")
        }
        let existing = dienst.volunteers.first { $0 == name }
        let path = "/diensten/" + QueryString.pathSegment(dienst.id) + "/volunteer?"
        let tenant = target.enrollment.tenant
        let response: UpstreamHTTP.Response
        if add {
            if let existing { throw WriteRefusal.conflict("\(existing) is already a volunteer on this dienst") }
            response = try await send(
                .POST, path + QueryString.encode([("tenant", tenant)]), body: try JSONCoding.encode(["naam": name]),
                enrollment: target.enrollment, client: client, context: context
            )
        } else {
            guard let existing else {
                guard name.count <= maximumNameLength else {
                    throw WriteRefusal.badInput("name must be 1 to \(maximumNameLength) characters (after trimming)")
                }
                let alike = dienst.volunteers.filter { $0.lowercased() == name.lowercased() }
                let hint = alike.isEmpty ? "" : " (names differ by case here: it has \(alike.joined(separator: ", ")))"
                throw WriteRefusal.notFound("\(name) is not a volunteer on this dienst\(hint)")
            }
            response = try await send(
                .DELETE, path + QueryString.encode([("tenant", tenant), ("naam", existing)]), body: nil,
                enrollment: target.enrollment, client: client, context: context
            )
        }
        if let changed = changedDienst(response.body, enrollment: target.enrollment, zone: context.timeZone) {
            return changed
        }
        // Written, but the answer did not carry the dienst: show the change on what was read.
        var volunteers = dienst.volunteers
        if add {
            volunteers.append(name)
        } else if let index = volunteers.firstIndex(of: name) {
            volunteers.remove(at: index)
        }
        return Dienst(
            id: dienst.id, tenant: dienst.tenant, team: dienst.team, start: dienst.start, end: dienst.end,
            location: dienst.location,
            type: dienst.type, status: dienst.status, volunteers: volunteers, volunteersNeeded: dienst.volunteersNeeded,
            role: target.enrollment.role, offeredForTransfer: dienst.offeredForTransfer, updatedAt: dienst.updatedAt
        )
    }

    /// The dienst in the answer to a volunteer change (`{"dienst":…}`, or wrapped in `data`),
    /// read like the diensten list; nil when the answer does not carry one.
    static func changedDienst(_ body: Data, enrollment: KantineKoningSettings.Enrollment, zone: TimeZone) -> Dienst? {
        let value = try? JSONValue(parsing: body)
        guard let row = value?["dienst"] ?? value?["data"]?["dienst"] else { return nil }
        return KantineKoningDienstenOperation.dienst(row, enrollment: enrollment, zone: zone)
    }

    /// One call with the enrollment's token, never repeated. A 401 is that enrollment's token
    /// refused (a season that ended is remembered, like the reads do); any other non-2xx is the
    /// upstream's refusal or failure.
    static func send(
        _ method: HTTPMethod, _ pathAndQuery: String, body: Data?, enrollment: KantineKoningSettings.Enrollment,
        client: KantineKoningClient, context: OperationContext
    ) async throws -> UpstreamHTTP.Response {
        let backend = KantineKoningClient.backend
        let response = try await client.http.send(
            method, url: client.settings.endpoint.baseURL + KantineKoningClient.prefix + pathAndQuery,
            headers: [("Authorization", "Bearer \(enrollment.token.reveal())")], body: body,
            timeout: client.settings.endpoint.timeout.seconds,
            source: UpstreamSource(profile: context.profileName, backend: backend, scope: enrollment.label)
        )
        if response.status == 401 {
            let refusal = KantineKoningTokenError(body: response.body)
            await client.refused(enrollment, refusal)
            throw BackendError(
                .rejected, backend: backend, message: "\(enrollment.label): \(refusal.message)", status: 401)
        }
        guard response.isSuccess else { throw refusal(response) }
        return response
    }

    /// The error for a write's non-2xx answer (other than a 401). A 4xx's
    /// `{"error":code,"message":Dutch text}`: the app shows the text; the code is kept beside it.
    static func refusal(_ response: UpstreamHTTP.Response) -> BackendError {
        let backend = KantineKoningClient.backend
        var error = UpstreamHTTP.error(for: response, backend: backend)
        if error.kind == .rejected, let value = try? JSONValue(parsing: response.body),
            let code = value["error"]?.stringValue, let text = value["message"]?.stringValue
        {
            error.message =
                "\(backend) refused the request (\(response.status)): \(BackendError.scrub(text)) (\(BackendError.scrub(code)))"
        }
        return error
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
