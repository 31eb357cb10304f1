import Foundation

/// Finds the shipped `routes/` and `static/` folders: in the working directory, else next to
/// the source tree the binary was built in (`.build/debug/daygate` → the checkout), else where
/// `make install` puts them (`PREFIX/bin/daygate` → `PREFIX/share/daygate/routes`).
enum ResourceLocator {
    static func directory(named name: String) -> String? {
        directory(
            named: name, workingDirectory: FileManager.default.currentDirectoryPath,
            executable: Bundle.main.executableURL)
    }

    /// The folders looked in, in order: `workingDirectory`, then the executable's folder and
    /// four above it, each as it is and with `share/daygate` under it.
    static func directory(named name: String, workingDirectory: String, executable: URL?) -> String? {
        let fileManager = FileManager.default
        var candidates = [workingDirectory]
        if let executable = executable?.resolvingSymlinksInPath() {
            var folder = executable.deletingLastPathComponent()
            for _ in 0..<5 {
                candidates.append(folder.path)
                candidates.append(folder.appendingPathComponent("share/daygate").path)
                folder = folder.deletingLastPathComponent()
            }
        }
        for base in candidates {
            let path = (base as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                return URL(fileURLWithPath: path).standardizedFileURL.path
            }
        }
        return nil
    }
}
