import Model

extension PRSNLCaptureWrite {
    /// `POST /v1/captures` in /openapi.json.
    public var documentation: WriteDocumentation {
        WriteDocumentation(
            operationID: "createCapture", summary: "Save a link or a note in PRSNL.",
            description:
                "At least one of url and content. The content_type sent to PRSNL is always explicit (absent or `auto` "
                + "becomes `link` for a URL, `note` for content: PRSNL fails on a URL capture without one); tags are sent "
                + "lower-cased without repeats. PRSNL processes a capture in the background: the answer is its acknowledgement "
                + "(status `pending`) with what was sent. The cached timeline, search results and tags are dropped. A URL that is "
                + "already saved is PRSNL's refusal (422 `upstream_rejected`).",
            backend: "PRSNL", body: PRSNLSchemas.newCapture,
            success: .init(
                202, "PRSNL accepted the capture and processes it in the background.",
                schema: PRSNLSchemas.captureAccepted),
            badRequest:
                "neither url nor content, a url that is not http(s), a value too long or of the wrong type, more than "
                + "20 tags, a content_type PRSNL does not know; or an unknown field",
            rateLimit: "PRSNL allows 30 captures a minute; when it says so, the answer is 429 with `Retry-After`.")
    }
}
