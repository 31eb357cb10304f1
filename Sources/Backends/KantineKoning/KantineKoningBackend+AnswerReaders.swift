import Foundation
import Model
import NIOHTTP1

extension KantineKoningBackend {
    /// Every Kantine Koning answer the gateway and `daygate connect` read, through the functions
    /// they call on it. The diensten answer is read as two enrollments at one club (a member and
    /// a manager) both sent it, so the merge of the same rows is read too.
    public var answerReaders: [BackendAnswerReader] {
        let day = BackendAnswerReader.referenceDay
        let now = BackendAnswerReader.referenceNow
        let member = KantineKoningSettings.Enrollment(
            tenant: "vv-example", role: "member", token: Secret("member-token"), label: "vv-example/member")
        let manager = KantineKoningSettings.Enrollment(
            tenant: "vv-example", role: "manager", token: Secret("manager-token"), label: "vv-example/manager")
        return [
            .json("kantinekoning.diensten") { value, zone in
                let rows = KantineKoningClient.dienstRows(value) ?? []
                let kept = KantineKoningDienstenOperation.kept(
                    [(member, rows), (manager, rows)], window: (day.adding(days: -7), day.adding(days: 60)),
                    zone: zone, now: now)
                let output = try OperationOutput(encoding: kept)
                BackendAnswerReader.cached(output, of: KantineKoningDienstenOperation().name, by: self, zone: zone)
            },
            .json("kantinekoning.leaderboard") { value, _ in
                _ = try OperationOutput(encoding: KantineKoningLeaderboardOperation.entries(value))
            },
            // A 401: which refusal it is (a season that ended, a revoked or unknown token).
            BackendAnswerReader("kantinekoning.token_refusal") { body, _ in
                let refusal = KantineKoningTokenError(body: Data(body))
                _ = try JSONCoding.encode(
                    KantineKoningInvalidToken(code: refusal.code, message: refusal.message, at: now))
                _ = KantineKoningErrorSentence.sentence(code: refusal.rawCode, reason: refusal.reason, status: 401)
            },
            BackendAnswerReader("kantinekoning.volunteer") { body, zone in
                _ = try KantineKoningVolunteers.changedDienst(Data(body), enrollment: manager, zone: zone).map {
                    try JSONCoding.encode($0)
                }
            },
            BackendAnswerReader("kantinekoning.volunteer_refusal") { body, _ in
                for status in [409, 422, 500] {
                    _ = KantineKoningVolunteers.refusal(
                        UpstreamHTTP.Response(status: status, headers: HTTPHeaders(), body: Data(body)))
                }
            },
            .json("kantinekoning.connect_clubs") { value, _ in
                _ = KantineKoningConnect.API.clubs(value)
            },
            .json("kantinekoning.connect_teams") { value, _ in
                _ = KantineKoningConnect.API.teams(value["teams"])
            },
            .json("kantinekoning.connect_register") { value, _ in
                let enrollment = try KantineKoningConnect.API.enrollment(value, now: now)
                _ = enrollment.label
                _ = enrollment.enrollment
                _ = try KantineKoningConnectedEnrollments.encoder.encode([enrollment])
            },
            BackendAnswerReader("kantinekoning.connect_refusal") { body, _ in
                _ = KantineKoningErrorSentence.sentence(body: Data(body), status: 422)
            },
            .upstreamError("kantinekoning"),
        ]
    }
}
