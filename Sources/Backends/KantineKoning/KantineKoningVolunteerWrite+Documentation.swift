import Model

extension KantineKoningVolunteerWrite {
    /// `POST /v1/diensten/{id}/volunteers` and `DELETE /v1/diensten/{id}/volunteers/{name}` in
    /// /openapi.json.
    public var documentation: WriteDocumentation {
        let forbidden =
            "`forbidden`: the profile's enrollments that see this dienst are members only; only a team manager may "
            + "change its volunteers."
        let success = WriteDocumentation.Success(
            200, "The dienst with its volunteers now.", schema: KantineKoningSchemas.dienstAnswer)
        switch kind {
        case .add:
            return WriteDocumentation(
                operationID: "addVolunteer", summary: "Put a volunteer's name on a Kantine Koning dienst.",
                description:
                    "Only a manager of the dienst's team may (as in the club's app), only on a dienst that has not started, "
                    + "and a name only once (compared exactly, as in the club app). The dienst is looked up fresh in every enrollment's "
                    + "diensten; the call goes to the club with the token of the enrollment that manages its team. Changes to one "
                    + "dienst run one at a time. The cached diensten are dropped.",
                backend: "Kantine Koning",
                parameters: [KantineKoningSchemas.dienstID, KantineKoningSchemas.dienstTenant],
                body: KantineKoningSchemas.newVolunteer, success: success,
                badRequest:
                    "name missing, not a string, empty or longer than 15 characters after trimming, or with control "
                    + "characters; an id longer than 100 characters; or an unknown field",
                forbidden: forbidden,
                notFound: "`not_found`: none of the profile's enrollments sees a dienst with this id.",
                conflict:
                    "`conflict`: the name is already on the dienst, the dienst has already started, or its id is seen at "
                    + "more than one club and `tenant` does not say which.")
        case .remove:
            return WriteDocumentation(
                operationID: "removeVolunteer", summary: "Take a volunteer's name off a Kantine Koning dienst.",
                description:
                    "The same rules as adding: a manager of the dienst's team, a dienst that has not started. No body "
                    + "and no Content-Type needed. The cached diensten are dropped.",
                backend: "Kantine Koning",
                parameters: [
                    KantineKoningSchemas.dienstID, KantineKoningSchemas.volunteerName,
                    KantineKoningSchemas.dienstTenant,
                ], success: success,
                badRequest: "an id or a name longer than 100 characters, or with control characters",
                forbidden: forbidden,
                notFound:
                    "`not_found`: none of the profile's enrollments sees a dienst with this id, or the name is not on it.",
                conflict:
                    "`conflict`: the dienst has already started, or its id is seen at more than one club and `tenant` does "
                    + "not say which.")
        }
    }
}
