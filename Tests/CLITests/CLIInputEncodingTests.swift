import Foundation
import XCTest

/// Input that is not what a command reads: `suggest` given text that is not UTF-8, and `store import` given a
/// line longer than an archive line may be.
final class CLIInputEncodingTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-input" }

    /// Runs the binary with `input` as standard input.
    private func run(_ arguments: [String], input: [UInt8]) throws -> CLITests.Outcome {
        let path = scratch + "/input-\(UUID().uuidString)"
        try Data(input).write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.currentDirectoryURL = CLITests.packageRoot
        process.standardInput = try XCTUnwrap(FileHandle(forReadingAtPath: path))
        let output = Pipe(), errors = Pipe()
        (process.standardOutput, process.standardError) = (output, errors)
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLITests.Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                                stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Shift-JIS is not read as names with no content: the error gives the byte offset, lines before it are
    /// answered, and the exit status is 1.
    func testSuggestRefusesInputThatIsNotUTF8() throws {
        // 「にんじん」 then 「ニンジン」 in Shift-JIS (83 6A 83 93 83 57 83 93).
        let shiftJIS: [UInt8] = [0x83, 0x6A, 0x83, 0x93, 0x83, 0x57, 0x83, 0x93]
        let outcome = try run(["suggest", "-k", "1"], input: Array("にんじん\n".utf8) + shiftJIS + [0x0A])
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertEqual(outcome.stderr, "Error: standard input is not UTF-8: byte 0x83 at byte offset 13 (line 2) does not "
            + "belong to a UTF-8 character; convert the input first (iconv -t UTF-8)\n")
        XCTAssertTrue(outcome.stdout.hasPrefix("にんじん"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("no suggestions"), outcome.stdout)
        // A character cut at the end of the input is not UTF-8 either.
        let cut = try run(["suggest", "--json"], input: Array("ab\r\nc".utf8) + [0xE3, 0x81])
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderr.contains("byte 0xE3 at byte offset 5 (line 2)"), cut.stderr)
    }

    /// A line that never ends is refused once 64 MiB of it are held, while its writer is still sending: the
    /// import does not wait for the line's end, and writes nothing.
    func testStoreImportRefusesAnOverlongLineWithoutReadingItAll() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        let overlay = scratch + "/keywords.overlay.json"
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["store", "import", "--store", "file:" + overlay]
        process.currentDirectoryURL = CLITests.packageRoot
        process.standardInput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        process.standardOutput = Pipe()
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        close(fds[1])
        let socket = fds[0]
        defer { close(socket) }
        // The writer: a good first line, then a line of at most 96 MiB that it never finishes.
        let limit = 96 << 20
        let sent = SentBytes()
        let writer = Thread {
            let head = Array(#"{"type":"keywords","added":["ごぼう"],"removed":[]}"#.utf8) + [0x0A]
                + Array(#"{"type":"feedback","name":""#.utf8)
            let piece = [UInt8](repeating: 0x78, count: 1 << 20)
            var total = 0
            for bytes in [head] + Array(repeating: piece, count: limit >> 20) {
                let count = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count == bytes.count else { break }
                total += count
                sent.set(total)
            }
        }
        writer.start()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            process.terminate()
            return XCTFail("the import waited for the end of a line that never ends (\(sent.value) bytes sent)")
        }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 1, text)
        XCTAssertEqual(text, "Error: <stdin>:2: the line is longer than 67108864 bytes, the most an archive line may "
            + "hold; nothing was imported\n")
        XCTAssertLessThan(sent.value, limit, "the import stopped reading before the writer was done")
        XCTAssertFalse(FileManager.default.fileExists(atPath: overlay))
    }
}

/// Bytes sent so far, shared between the writer thread and the test.
final class SentBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    var value: Int { lock.withLock { total } }
    func set(_ value: Int) { lock.withLock { total = value } }
}
