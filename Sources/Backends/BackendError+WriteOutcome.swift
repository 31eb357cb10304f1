extension BackendError {
    /// Whether a write that failed with this error may have been done all the same: a 5xx (it can
    /// come after the write was stored — a proxy's 502/504 once the app wrote, an app failing
    /// after its insert), or no readable answer once the call may have arrived (a timeout, a
    /// connection lost after sending, an answer that is not JSON). A refusal, a rate limit, an
    /// open circuit or a connection never made did nothing.
    public var mayHaveBeenDone: Bool {
        guard mayHaveArrived else { return false }
        switch kind {
        case .status, .timeout, .unreachable, .badResponse: return true
        default: return false
        }
    }

    /// ``mayHaveBeenDone`` of any error: false for anything but a `BackendError`.
    public static func mayHaveBeenDone(_ error: any Error) -> Bool {
        (error as? BackendError)?.mayHaveBeenDone ?? false
    }
}
