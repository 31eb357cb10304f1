/// Like `Result`, without requiring the failure to be an `Error` (typically a ready `Response`).
enum Checked<Success, Failure> {
    case success(Success)
    case failure(Failure)
}
