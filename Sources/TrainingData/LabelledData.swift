// Labelled product names in JSON lines: {"name": "…", "keywords": ["primary", "acceptable", …], "source": "…"}.
import Foundation
import ModelStorage
import StoreInterface
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

    /// The training line of `labelled` (`{"name": …, "keywords": […], "source": …}` and a newline), as `load` reads it.
    public static func line(_ labelled: LabelledName) -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.field("name", string: labelled.name)
            json.field("keywords") { json in json.array { json in for keyword in labelled.keywords { json.string(keyword) } } }
            json.field("source", string: labelled.source)
        }
        return json.bytes + [0x0A]
    }

    /// The labelled name a feedback record teaches: the name with the keyword an annotator took or typed, source
    /// `feedback`. A rejection teaches no keyword, nor does a record `withdrawn` (written by an annotation-queue
    /// decision that was undone since): nil.
    public static func example(_ record: FeedbackRecord, withdrawn: Set<Int64> = []) -> LabelledName? {
        guard record.item.action != .reject, !withdrawn.contains(record.id) else { return nil }
        return LabelledName(name: record.item.name, keywords: [record.item.keyword], source: "feedback")
    }

    /// The training lines of the store's feedback records, oldest first, through `write` (called once per page of
    /// `pageRecords` records, so memory follows the page, not the store). Returns how many lines were written.
    @discardableResult
    public static func export(_ store: any KeywordStore, withdrawn: Set<Int64> = [], pageRecords: Int = 10_000,
                              write: ([UInt8]) throws -> Void) throws -> Int {
        var after: Int64 = 0, written = 0
        while true {
            let page = try store.feedback(after: after, limit: pageRecords)
            guard let last = page.last else { return written }
            var bytes: [UInt8] = []
            for record in page {
                guard let example = example(record, withdrawn: withdrawn) else { continue }
                bytes += line(example)
                written += 1
            }
            if !bytes.isEmpty { try write(bytes) }
            after = last.id
        }
    }
}
