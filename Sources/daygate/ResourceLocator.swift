import Foundation

/// Finds the shipped `routes/` and `static/` folders: in the working directory, else next to
/// the source tree the binary was built in (`.build/debug/daygate` → the checkout).
enum ResourceLocator {
    static func directory(named name: String) -> String? {
        let fileManager = FileManager.default
        var candidates = [fileManager.currentDirectoryPath]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = executable.deletingLastPathComponent()
            for _ in 0..<5 {
                candidates.append(folder.path)
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
