import Foundation
import XCTest

/// `HTTPCore` is a generic HTTP server: it must not name the application built on it. The service's metric and
/// thread names come in through `ServerConfiguration`, so the application's name may appear in HTTPCore's comments
/// (none do today) but never in its code or strings. The socket layer under it (`Sockets`) is generic too, and
/// knows nothing of HTTP: the system calls live there and nowhere in the HTTP core.
final class GenericHTTPTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each Swift file of `folder` with its comments taken out.
    private func code(in folder: String) throws -> [(name: String, code: String)] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let file as URL in walker where file.pathExtension == "swift" {
            files.append((file.lastPathComponent, Self.withoutComments(try String(contentsOf: file, encoding: .utf8))))
        }
        return files
    }

    func testHTTPCoreCodeDoesNotNameTheApplication() throws {
        for (folder, least) in [("Sources/HTTPCore", 10), ("Sources/Sockets", 2)] {
            let files = try code(in: folder)
            XCTAssertGreaterThanOrEqual(files.count, least, "found too few sources in \(folder)")
            for (name, code) in files {
                for (number, line) in code.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.lowercased().contains("kwsuggest") {
                    XCTFail("\(name):\(number + 1) names the application outside a comment: \(line)")
                }
            }
        }
    }

    /// The socket layer names no HTTP type, and the HTTP core makes no socket, epoll or eventfd call of its own:
    /// it goes through `Syscall`.
    func testSocketLayerStaysBelowHTTP() throws {
        let sockets = try code(in: "Sources/Sockets")
        XCTAssertGreaterThanOrEqual(sockets.count, 2, "found too few sources in Sources/Sockets")
        for (name, code) in sockets {
            for (number, line) in code.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("HTTP") {
                XCTFail("\(name):\(number + 1) names HTTP in the socket layer: \(line)")
            }
        }
        let calls = ["Glibc.socket(", "Glibc.bind(", "Glibc.listen(", "csystem_accept4(", "epoll_create", "epoll_ctl(",
                     "epoll_wait(", "eventfd(", "getaddrinfo(", "setsockopt("]
        for (name, code) in try self.code(in: "Sources/HTTPCore") {
            for call in calls where code.contains(call) {
                XCTFail("\(name) calls \(call) itself; system calls belong to the Sockets module")
            }
        }
    }

    /// The scan sees strings and code, and only comments are taken out.
    func testCommentsAreTheOnlyThingTakenOut() {
        let source = """
            // kwsuggest in a line comment
            let a = "kwsuggest-loop" /* kwsuggest in a block /* nested */ comment */ let b = 1
            let url = "http://x" + "kwsuggest_http" // kwsuggest
            let raw = #"a "quoted" // kwsuggest_raw"#
            /// kwsuggest in a doc comment
            """
        let code = Self.withoutComments(source)
        XCTAssertTrue(code.contains(#""kwsuggest-loop""#), code)
        XCTAssertTrue(code.contains(#""kwsuggest_http""#), code)
        XCTAssertTrue(code.contains("kwsuggest_raw"), code)
        XCTAssertTrue(code.contains("let b = 1"), code)
        XCTAssertEqual(code.components(separatedBy: "kwsuggest").count - 1, 3, code)
        // Line numbers survive: a comment leaves its newline behind.
        XCTAssertEqual(code.split(separator: "\n", omittingEmptySubsequences: false).count, 5, code)
    }

    /// `text` with `//` and (nested) `/* */` comments removed; string literals, including raw (`#"…"#`) and
    /// multi-line ones, are kept whole, so a `//` inside a string is not taken for a comment.
    static func withoutComments(_ text: String) -> String {
        let characters = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        func at(_ offset: Int) -> Unicode.Scalar? {
            index + offset < characters.count ? characters[index + offset] : nil
        }
        while index < characters.count {
            let character = characters[index]
            if character == "/", at(1) == "/" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", at(1) == "*" {
                var depth = 0
                repeat {
                    if at(0) == "/", at(1) == "*" { depth += 1; index += 2 }
                    else if at(0) == "*", at(1) == "/" { depth -= 1; index += 2 }
                    else { if at(0) == "\n" { output.append("\n") }; index += 1 }
                } while depth > 0 && index < characters.count
            } else if character == "#" || character == "\"" {
                // A string literal: count its `#`s and quotes, then copy up to the matching closing delimiter.
                var hashes = 0
                while at(hashes) == "#" { hashes += 1 }
                guard at(hashes) == "\"" else {
                    output.append(character)
                    index += 1
                    continue
                }
                let multiline = at(hashes + 1) == "\"" && at(hashes + 2) == "\""
                let quotes = multiline ? 3 : 1
                let closing = Array(repeating: Unicode.Scalar("\""), count: quotes) + Array(repeating: "#", count: hashes)
                for _ in 0..<(hashes + quotes) { output.append(characters[index]); index += 1 }
                while index < characters.count {
                    if hashes == 0, characters[index] == "\\", index + 1 < characters.count {
                        output.append(characters[index])
                        output.append(characters[index + 1])
                        index += 2
                        continue
                    }
                    if Array(characters[index..<min(characters.count, index + closing.count)]) == closing {
                        for scalar in closing { output.append(scalar) }
                        index += closing.count
                        break
                    }
                    output.append(characters[index])
                    index += 1
                }
            } else {
                output.append(character)
                index += 1
            }
        }
        return String(output)
    }
}
