import Foundation
import Model

extension PRSNLBackend {
    /// Every PRSNL answer the gateway and `daygate connect` read, through the functions its
    /// client and operations call on it.
    public var answerReaders: [BackendAnswerReader] {
        let now = BackendAnswerReader.referenceNow
        let sent: JSONValue = .object([
            "content_type": .string("link"), "tags": .array([.string("reading")]),
            "url": .string("https://example.org/article"),
        ])
        return [
            .json("prsnl.timeline") { value, zone in
                for limit in [1, 10, 100] {
                    _ = try OperationOutput(encoding: PRSNLTimelineOperation.items(value, limit: limit, zone: zone))
                    _ = try OperationOutput(encoding: PRSNLTimelineCursorOperation.cursor(value, limit: limit))
                }
            },
            .json("prsnl.search") { value, zone in
                // The walk over the account's timeline, fed the answer's own rows as its page.
                let rows = PRSNLOwnedResults.rows(value, keys: PRSNLSearchOperation.resultKeys)
                var owned = PRSNLOwnedResults(items: rows)
                while owned.nextCursor() != nil { owned.read(page: rows) }
                _ = try OperationOutput(encoding: PRSNLSearchOperation.own(value, owned: owned, limit: 100, zone: zone))
            },
            .json("prsnl.tags") { value, _ in
                _ = try OperationOutput(encoding: PRSNLTagsOperation.tags(value))
            },
            .json("prsnl.item") { value, zone in
                _ = try OperationOutput(encoding: PRSNLItemOperation.item(value, zone: zone))
            },
            .json("prsnl.capture") { value, _ in
                _ = try JSONCoding.encode(PRSNLCaptures.answer(value, sent: sent))
            },
            // `POST /api/auth/login` and `/refresh`: the tokens, and when the access token expires.
            BackendAnswerReader("prsnl.tokens") { body, _ in
                let tokens = try PRSNLClient.tokens(Data(body))
                _ = JWTClaims.expiresSoon(tokens.access, now: now)
                _ = JWTClaims.expiry(of: tokens.access)
            },
            BackendAnswerReader("prsnl.connect_login") { body, _ in
                _ = RefreshTokenLogin.tokens(Data(body))
            },
            .upstreamError("prsnl"),
        ]
    }
}
