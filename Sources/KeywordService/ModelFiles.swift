// Readers for the plain-text files of a model directory: the keyword list and the varieties table.
import Foundation

/// Plain-text model files: one keyword per line; `variety<TAB>keyword[<TAB>source]` lines.
public enum ModelFiles {
    /// Reads a keyword list: one keyword per line, blank lines and `#` comments skipped, duplicates dropped
    /// (first kept), surrounding spaces trimmed. Invalid UTF-8 is an error naming the file and line.
    public static func keywords(path: String) throws -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        try lines(path: path) { number, line in
            let keyword = line.trimmingCharacters(in: .whitespaces)
            if keyword.isEmpty || keyword.hasPrefix("#") { return }
            guard keyword.count <= 200 else {
                throw ModelDirectoryError(path: path, line: number, message: "keyword longer than 200 characters")
            }
            if seen.insert(keyword).inserted { result.append(keyword) }
        }
        return result
    }

    /// Reads a varieties table: `variety<TAB>keyword`, optionally more columns (source); `#` comments skipped.
    public static func varieties(path: String) throws -> [(variety: String, keyword: String)] {
        var result: [(String, String)] = []
        try lines(path: path) { number, line in
            if line.isEmpty || line.hasPrefix("#") { return }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 2 else {
                throw ModelDirectoryError(path: path, line: number, message: "expected 'variety<TAB>keyword'")
            }
            let variety = columns[0].trimmingCharacters(in: .whitespaces)
            let keyword = columns[1].trimmingCharacters(in: .whitespaces)
            if variety == "variety" || variety == "name" { return }    // a header line
            guard !variety.isEmpty, !keyword.isEmpty else {
                throw ModelDirectoryError(path: path, line: number, message: "empty variety or keyword")
            }
            result.append((variety, keyword))
        }
        return result
    }

    /// The rows of a varieties file whose third column (the source) is `source`, e.g. the brand names.
    public static func varieties(path: String, source: String) throws -> [(variety: String, keyword: String)] {
        var result: [(String, String)] = []
        try lines(path: path) { _, line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 3, columns[2].trimmingCharacters(in: .whitespaces) == source else { return }
            result.append((columns[0].trimmingCharacters(in: .whitespaces), columns[1].trimmingCharacters(in: .whitespaces)))
        }
        return result
    }

    /// Calls `body` with each line (1-based number, without the line break).
    static func lines(path: String, _ body: (Int, String) throws -> Void) throws {
        // FileHandle also reads pipes such as /dev/fd/N (bash process substitution).
        guard let data = FileManager.default.contents(atPath: path)
                ?? FileHandle(forReadingAtPath: path).map({ $0.readDataToEndOfFile() }) else {
            throw ModelDirectoryError(path: path, message: "cannot read the file")
        }
        var number = 0
        for raw in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            var bytes = raw
            if bytes.last == 0x0D { bytes = bytes.dropLast() }
            guard let line = String(data: Data(bytes), encoding: .utf8) else {
                throw ModelDirectoryError(path: path, line: number, message: "invalid UTF-8")
            }
            try body(number, line)
        }
    }
}
