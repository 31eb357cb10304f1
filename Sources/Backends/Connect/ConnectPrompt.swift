/// How a connect flow asks its questions: on a terminal (passwords without echo) or from the
/// flags of a script. Every question has a key (`email`, `password`, `club`); an answer given
/// for that key is used without asking, and without a terminal a missing answer is an error
/// naming the flag to pass.
public protocol ConnectPrompt: Sendable {
    /// Tells the person something (never a secret).
    func say(_ line: String)

    /// A line of text for `key`; `suggestion` is taken when the answer is empty.
    func ask(_ key: String, _ question: String, suggestion: String?) throws -> String

    /// A secret for `key`, read without echo.
    func askSecret(_ key: String, _ question: String) throws -> String

    /// One of `choices` (or several with `multiple`), by index. An answer given for `key` names
    /// them by `ConnectChoice.key` (several separated by commas).
    func choose(_ key: String, _ question: String, choices: [ConnectChoice], multiple: Bool) throws -> [Int]

    /// Whether an answer for `key` was given up front (by a flag).
    func hasAnswer(_ key: String) -> Bool
}

extension ConnectPrompt {
    public func ask(_ key: String, _ question: String) throws -> String {
        try ask(key, question, suggestion: nil)
    }
}
