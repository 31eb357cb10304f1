/// What a dienst's `status` says. The sources name one value only — `ingepland` (planned), in
/// the contract's example; the club app shows the status as text (`Text(d.status.capitalized)`)
/// and decides nothing on it. No source lists the value of a cancelled dienst, so daygate
/// reads the words a Dutch club or an English build would use — `geannuleerd`, `afgelast`,
/// `cancelled`, `canceled`, in any case — as cancelled (an ICS `STATUS:CANCELLED`), and every
/// other value as planned. Pure: tested without sockets.
enum KantineKoningDienstStatus {
    static let cancelledWords: Set<String> = ["geannuleerd", "afgelast", "cancelled", "canceled"]

    static func isCancelled(_ status: String?) -> Bool {
        guard let status else { return false }
        return cancelledWords.contains(status.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
