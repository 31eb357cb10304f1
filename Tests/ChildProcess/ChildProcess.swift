import Foundation

/// Runs a program to its end for a test — `python3` with a reference script, say — on a
/// thread of its own, so waiting for it never blocks one of Swift Concurrency's few shared
/// threads (on a 2-core machine there are two, and a test holding them for seconds makes
/// every other test's timers fire late).
public enum ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: Data
        public var error: String
    }

    /// `/usr/bin/env <arguments>`; its standard output and error are read to their ends.
    public static func run(_ arguments: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    continuation.resume(returning: try runBlocking(arguments))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }

    private static func runBlocking(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Standard error on its own thread, so neither pipe can fill up while the other is read.
        let errorData = ErrorBuffer()
        let errorReader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: data, error: errorData.wait())
    }

    private final class ErrorBuffer: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()

        func set(_ data: Data) {
            self.data = data
            done.signal()
        }

        func wait() -> String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
