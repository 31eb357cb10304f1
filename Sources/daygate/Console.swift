import Foundation

/// Writes lines to standard output unbuffered, so URLs printed by long-running commands show
/// up at once even when output goes to a file or a pipe.
enum Console {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
