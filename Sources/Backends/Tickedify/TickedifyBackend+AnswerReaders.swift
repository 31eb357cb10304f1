import Foundation
import Model

extension TickedifyBackend {
    /// Every Tickedify answer the gateway reads, through the functions its client and
    /// operations call on it.
    public var answerReaders: [BackendAnswerReader] {
        let day = BackendAnswerReader.referenceDay
        let now = BackendAnswerReader.referenceNow
        return [
            .json("tickedify.daily_plan") { value, zone in
                let output = try OperationOutput(encoding: TickedifyNormalisation.planItems(value))
                BackendAnswerReader.cached(output, of: TickedifyDailyPlanOperation().name, by: self, zone: zone)
            },
            .json("tickedify.list") { value, zone in
                let arguments: [String: ArgumentValue] = ["list": .string("acties"), "due_by": .date(day)]
                _ = try OperationOutput(
                    encoding: TickedifyListOperation.tasks(value, arguments: arguments, today: day, zone: zone))
            },
            .json("tickedify.completed") { value, zone in
                let output = try OperationOutput(
                    encoding: TickedifyCompletedOperation.completed(value, on: day, zone: zone))
                BackendAnswerReader.cached(output, of: TickedifyCompletedOperation().name, by: self, zone: zone)
            },
            .json("tickedify.counts") { value, _ in
                _ = try OperationOutput(encoding: TickedifyNormalisation.counts(value))
            },
            // `POST /api/auth/login` and `GET /api/auth/me`: what they say about the account's access.
            .json("tickedify.access") { value, _ in
                let access = TickedifyAccess.from(value, at: now)
                _ = access?.error
                _ = access?.needsRecheck(now: now)
                _ = try access.map { try JSONCoding.encode($0) }
            },
            // The login's `Set-Cookie` lines (one per line; a `Date:` line is the answer's date).
            BackendAnswerReader("tickedify.session_cookie") { body, _ in
                let lines = String(decoding: body, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
                let date = lines.first { $0.hasPrefix("Date:") }.map {
                    $0.dropFirst(5).trimmingCharacters(in: .whitespaces)
                }
                guard
                    let cookie = TickedifySessionCookie.parse(
                        lines.filter { !$0.hasPrefix("Date:") }, name: TickedifyClient.cookieName, serverDate: date,
                        now: now)
                else { return }
                _ = TickedifySession.expiry(of: cookie, at: now)
            },
            .json("tickedify.persistent_token") { value, _ in
                _ = TickedifyPersistentLogin.token(inAnswer: value)
            },
            .json("tickedify.add_task") { value, _ in
                _ = try TickedifyInbox.taskID(value)
            },
            BackendAnswerReader("tickedify.complete") { body, _ in
                let value = TickedifyTaskWrites.json(Data(body))
                _ = try TickedifyTaskWrites.nextTaskID(value)
                _ = TickedifyTaskWrites.completionRefusal(status: 400, body: value, id: "task_1")
            },
            .upstreamError("tickedify"),
        ]
    }
}
