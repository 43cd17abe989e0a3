// Labelled product names in JSON lines: {"name": "…", "keywords": ["primary", "acceptable", …], "source": "…"}.
import Foundation

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
    /// string `name` and a non-empty array of non-empty string `keywords` is an error naming the file and line.
    public static func load(path: String) throws -> [LabelledName] {
        var result: [LabelledName] = []
        try ModelFiles.lines(path: path) { number, line in
            if line.trimmingCharacters(in: .whitespaces).isEmpty { return }
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [])
            } catch {
                throw ModelDirectoryError(path: path, line: number, message: "not valid JSON")
            }
            guard let fields = object as? [String: Any] else {
                throw ModelDirectoryError(path: path, line: number, message: "expected a JSON object")
            }
            guard let name = fields["name"] as? String,
                  !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ModelDirectoryError(path: path, line: number, message: "missing or empty string field 'name'")
            }
            guard let keywords = fields["keywords"] as? [Any], !keywords.isEmpty else {
                throw ModelDirectoryError(path: path, line: number, message: "missing or empty array field 'keywords'")
            }
            var strings: [String] = []
            for keyword in keywords {
                guard let text = keyword as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw ModelDirectoryError(path: path, line: number, message: "'keywords' must hold non-empty strings")
                }
                strings.append(text.trimmingCharacters(in: .whitespaces))
            }
            let source = fields["source"] as? String ?? ""
            result.append(LabelledName(name: name, keywords: strings, source: source, line: number))
        }
        guard !result.isEmpty else { throw ModelDirectoryError(path: path, message: "no labelled names") }
        return result
    }
}
