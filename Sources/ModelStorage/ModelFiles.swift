// Readers for the plain-text files of a model directory: the keyword list and the varieties table.
import Foundation
import Platform

/// Plain-text model files: one keyword per line; `variety<TAB>keyword[<TAB>source]` lines.
public enum ModelFiles {
    /// The API's keyword limit, so a list file holds nothing `POST /v1/keywords` would refuse.
    public static let maxKeywordCodePoints = 100

    /// Reads a keyword list: one keyword per line, blank lines and `#` comments skipped, duplicates dropped
    /// (first kept), surrounding spaces trimmed. Invalid UTF-8 is an error naming the file and line, and so
    /// is a keyword over 100 code points or with a control character. At most 16 MiB are read.
    public static func keywords(path: String) throws -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        try lines(path: path) { number, line in
            switch keywordLine(line) {
            case .skipped:
                return
            case .refused(let message):
                throw ModelDirectoryError(path: path, line: number, message: message)
            case .keyword(let keyword):
                if seen.insert(keyword).inserted { result.append(keyword) }
            }
        }
        return result
    }

    /// What `keywords(path:)` makes of one line of a keyword list (without its line break).
    package enum KeywordLine: Equatable {
        /// A blank line or a `#` comment.
        case skipped
        /// The line holds this keyword (the line trimmed of spaces).
        case keyword(String)
        /// The line is an error, for this reason.
        case refused(String)
    }

    /// Reads one line of a keyword list: the one place that says what a line holds.
    package static func keywordLine(_ line: String) -> KeywordLine {
        let keyword = trimmingSpaces(line)
        if keyword.isEmpty || keyword.hasPrefix("#") { return .skipped }
        guard keyword.unicodeScalars.count <= maxKeywordCodePoints else {
            return .refused("keyword longer than \(maxKeywordCodePoints) characters (Unicode code points)")
        }
        guard !keyword.containsControlCharacter else {
            return .refused("keyword contains a control character")
        }
        return .keyword(keyword)
    }

    /// Why `keyword`, written as one line of a keyword list, would not be read back as that keyword (skipped as a
    /// blank or comment line, read trimmed, or refused), or nil when it would. A writer checks every keyword with
    /// this rather than write a line the list would lose or misread.
    public static func listProblem(with keyword: String) -> String? {
        switch keywordLine(keyword) {
        case .keyword(let read) where read == keyword:
            return nil
        case .keyword:
            return "it has spaces around it, which the list trims"
        case .skipped:
            return trimmingSpaces(keyword).isEmpty
                ? "it is blank, and the list skips blank lines"
                : "it starts with #, and the list reads a line starting with # as a comment"
        case .refused(let message):
            return "it cannot be one line of the list (\(message))"
        }
    }

    /// Reads a varieties table: `variety<TAB>keyword`, optionally more columns (source); `#` comments skipped.
    public static func varieties(path: String) throws -> [(variety: String, keyword: String)] {
        try varietyRows(path: path).map { ($0.variety, $0.keyword) }
    }

    /// Every row of a varieties file with its third column, the source (`brand`, `jmdict`, …; empty when absent),
    /// read once for both the variety evidence and the brand words.
    public static func varietyRows(path: String) throws -> [(variety: String, keyword: String, source: String)] {
        var result: [(String, String, String)] = []
        try lines(path: path) { number, line in
            if line.isEmpty || line.hasPrefix("#") { return }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 2 else {
                throw ModelDirectoryError(path: path, line: number, message: "expected 'variety<TAB>keyword'")
            }
            let variety = trimmingSpaces(columns[0])
            let keyword = trimmingSpaces(columns[1])
            if variety == "variety" || variety == "name" { return }    // a header line
            guard !variety.isEmpty, !keyword.isEmpty else {
                throw ModelDirectoryError(path: path, line: number, message: "empty variety or keyword")
            }
            let source = columns.count >= 3 ? trimmingSpaces(columns[2]) : ""
            result.append((variety, keyword, source))
        }
        return result
    }

    /// The file of a model directory that names each keyword's category.
    public static let keywordCategoriesName = "keyword-categories.tsv"

    /// Reads `keyword<TAB>category` lines (more columns ignored, `#` comments and blank lines skipped); a keyword
    /// named twice keeps its first category.
    public static func keywordCategories(path: String) throws -> [String: String] {
        var categories: [String: String] = [:]
        try lines(path: path) { number, line in
            if line.isEmpty || line.hasPrefix("#") { return }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 2 else {
                throw ModelDirectoryError(path: path, line: number, message: "expected 'keyword<TAB>category'")
            }
            let keyword = trimmingSpaces(columns[0])
            let category = trimmingSpaces(columns[1])
            guard !keyword.isEmpty, !category.isEmpty,
                  !category.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ModelDirectoryError(path: path, line: number, message: "empty keyword or category, or a control character")
            }
            if categories[keyword] == nil { categories[keyword] = category }
        }
        return categories
    }

    /// `text` without the spaces and tabs around it (Unicode space separators and U+0009, as Foundation's
    /// `CharacterSet.whitespaces`), without Foundation's per-call cost: list files are read line by line at load.
    static func trimmingSpaces<S: StringProtocol>(_ text: S) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let string = String(text)
        let scalars = string.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }

    /// Calls `body` with each line (1-based number, without the line break).
    /// Largest list file read (keywords, varieties). The shipped lists are under 64 KB.
    public static let maxListBytes = 16 * 1024 * 1024

    package static func lines(path: String, _ body: (Int, String) throws -> Void) throws {
        let data = try boundedContents(path: path, maxBytes: maxListBytes)
        var number = 0
        for raw in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            var bytes = raw
            if bytes.last == 0x0D { bytes = bytes.dropLast() }
            guard let line = String(validating: bytes, as: UTF8.self) else {
                throw ModelDirectoryError(path: path, line: number, message: "invalid UTF-8")
            }
            try body(number, line)
        }
    }

    /// The bytes of a regular file or a pipe (such as `/dev/fd/N` from bash process substitution), at most
    /// `maxBytes` of them; devices (a symlink to `/dev/urandom`, say) and directories are errors.
    static func boundedContents(path: String, maxBytes: Int) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ModelDirectoryError(path: path, message: "cannot read the file")
        }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFREG {
            guard Int(info.st_size) <= maxBytes else {
                throw ModelDirectoryError(path: path, message: "the file has \(info.st_size) bytes; at most \(maxBytes) are read")
            }
        } else if kind != S_IFIFO {
            throw ModelDirectoryError(path: path, message: "not a regular file or a pipe")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ModelDirectoryError(path: path, message: "cannot read the file")
        }
        defer { try? handle.close() }
        var data = Data()
        while true {
            let piece: Data
            do {
                piece = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw ModelDirectoryError(path: path, message: "cannot read the file (\(error.localizedDescription))")
            }
            if piece.isEmpty { return data }
            data.append(piece)
            guard data.count <= maxBytes else {
                throw ModelDirectoryError(path: path, message: "more than \(maxBytes) bytes; at most \(maxBytes) are read")
            }
        }
    }
}
