// Labelled product names in JSON lines: {"name": "…", "keywords": ["primary", "acceptable", …], "source": "…"}.
import Foundation
import StrictJSON

/// One labelled product name.
public struct LabelledName: Sendable, Equatable {
    public var name: String
    /// The primary keyword first, then acceptable ones.
    public var keywords: [String]
    public var source: String
    /// 1-based line in its file.
    public var line: Int
    public init(name: String, keywords: [String], source: String = "", line: Int = 0) {
        self.name = name
        self.keywords = keywords
        self.source = source
        self.line = line
    }
}

public enum LabelledData {
    /// Reads a JSON-lines file. Blank lines are skipped; anything else that is not an object with a non-empty
    /// string `name` and a non-empty array of non-empty string `keywords` is an error naming the file and line;
    /// so is a line that is not strict JSON (a repeated key, trailing data), with the byte offset in the line.
    public static func load(path: String) throws -> [LabelledName] {
        var result: [LabelledName] = []
        try ModelFiles.lines(path: path) { number, line in
            if line.trimmingCharacters(in: .whitespaces).isEmpty { return }
            let object: JSONValue
            do {
                object = try JSONParser.parse(Array(line.utf8))
            } catch {
                throw ModelDirectoryError(path: path, line: number, message: "not valid JSON: \(error)")
            }
            guard case .object(let fields) = object else {
                throw ModelDirectoryError(path: path, line: number, message: "expected a JSON object")
            }
            guard case .string(let name)? = fields["name"],
                  !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ModelDirectoryError(path: path, line: number, message: "missing or empty string field 'name'")
            }
            guard case .array(let keywords)? = fields["keywords"], !keywords.isEmpty else {
                throw ModelDirectoryError(path: path, line: number, message: "missing or empty array field 'keywords'")
            }
            var strings: [String] = []
            for keyword in keywords {
                guard case .string(let text) = keyword, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw ModelDirectoryError(path: path, line: number, message: "'keywords' must hold non-empty strings")
                }
                strings.append(text.trimmingCharacters(in: .whitespaces))
            }
            var source = ""
            switch fields["source"] {
            case nil, .null?: break
            case .string(let text)?: source = text
            default: throw ModelDirectoryError(path: path, line: number, message: "'source' must be a string")
            }
            result.append(LabelledName(name: name, keywords: strings, source: source, line: number))
        }
        guard !result.isEmpty else { throw ModelDirectoryError(path: path, message: "no labelled names") }
        return result
    }
}
