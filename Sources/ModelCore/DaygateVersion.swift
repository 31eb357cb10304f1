/// daygate's own version: what `daygate --version` prints, the `User-Agent` it sends upstream
/// (`daygate/<version>`) and the `app_version` it registers with Kantine Koning.
public enum DaygateVersion {
    public static let current = "1.0.0"
    /// The build of ``current`` (what an app sends as its `build_number` beside `app_version`).
    public static let build = "1"
}
