// `kwsuggest store export` / `import`: a store's whole contents as JSON lines, to move between stores
// (files to PostgreSQL and back) and for backups.
import Foundation
import StrictJSON

/// The archive format: one line `{"type":"keywords","added":[…],"removed":[…]}`, then one line per feedback
/// record `{"type":"feedback","id":…,"received_at":…,"name":…,…}` (the keys of the raw feedback export).
public enum StoreArchive {
    /// What an import did.
    public struct ImportSummary: Sendable, Equatable {
        public var added: Int
        public var removed: Int
        public var feedbackRead: Int
        public var feedbackStored: Int
    }

    /// Writes the archive of `store` through `write` (called once per line, newline included).
    public static func export(_ store: any KeywordStore, write: ([UInt8]) throws -> Void) throws {
        let overlay = try store.loadOverlay()
        var head = JSONWriter()
        head.object { json in
            for (field, keywords) in [("added", overlay.added), ("removed", overlay.removed)] {
                json.field(field) { json in
                    json.array { json in
                        for keyword in keywords { json.string(keyword) }
                    }
                }
            }
            json.field("type", string: "keywords")
        }
        try write(head.bytes + [0x0A])
        var after: Int64 = 0
        while true {
            let page = try store.feedback(after: after, limit: 10_000)
            guard let last = page.last else { break }
            for record in page {
                try write(FeedbackLine.encode(record, type: "feedback"))
            }
            after = last.id
        }
    }

    /// The longest archive line, in bytes: room for a keywords line at the largest list of the longest
    /// keywords, and a bound on what one line can make an import hold.
    public static let maxLineBytes = 64 << 20

    /// Reads an archive and loads it into `store`: the keyword changes replace the store's, feedback records
    /// are added with their ids unless an id (or client id) is already there.
    ///
    /// Every line is checked before anything is written, by the rules the API applies to the same data: keywords
    /// by `KeywordRules` (a keyword in both lists is refused), feedback records by `FeedbackRules` (name, keyword,
    /// `shown`, labels, a record id from 1 to `FeedbackRules.maxRecordID`, a valid `received_at`), record ids
    /// increasing line by line. A bad line (longer than `maxLineBytes`, not valid JSON, a repeated key, a field of
    /// the wrong type, a broken rule) throws an error naming `source` and the line, and nothing is written. The
    /// keyword changes are also refused, and nothing is written, when the list they would serve on `base` (the
    /// model's own keywords) breaks `KeywordRules.checkListSize`; that check runs under the store's lock.
    public static func importArchive(_ data: Data, source: String, into store: any KeywordStore,
                                     base: [String], maxKeywords: Int = KeywordRules.maxKeywords) throws -> ImportSummary {
        var pending = Array(data)
        let lines = ArchiveLineReader(maxLineBytes: maxLineBytes) {
            defer { pending = [] }
            return pending
        }
        return try importArchive(lines, source: source, into: store, base: base, maxKeywords: maxKeywords)
    }

    /// `importArchive` reading `handle` to its end in pieces: a line longer than `maxLineBytes` is refused
    /// without reading the rest of it.
    public static func importArchive(reading handle: FileHandle, source: String, into store: any KeywordStore,
                                     base: [String], maxKeywords: Int = KeywordRules.maxKeywords) throws -> ImportSummary {
        let lines = ArchiveLineReader(maxLineBytes: maxLineBytes) {
            do {
                return try handle.read(upToCount: 1 << 20).map { Array($0) } ?? []
            } catch {
                throw KeywordStoreError.failed("\(source): cannot read: \(error.localizedDescription)")
            }
        }
        return try importArchive(lines, source: source, into: store, base: base, maxKeywords: maxKeywords)
    }

    private static func importArchive(_ reader: ArchiveLineReader, source: String, into store: any KeywordStore,
                                      base: [String], maxKeywords: Int) throws -> ImportSummary {
        var lines = reader
        var overlay: KeywordOverlay?
        var records: [FeedbackRecord] = []
        var number = 0
        while true {
            number += 1
            let next: [UInt8]?
            do {
                next = try lines.next()
            } catch is ArchiveLineReader.LineTooLong {
                throw KeywordStoreError.failed("\(source):\(number): the line is longer than \(maxLineBytes) bytes, "
                    + "the most an archive line may hold; nothing was imported")
            }
            guard let line = next else { break }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(line)
            } catch {
                throw KeywordStoreError.failed("\(source):\(number): not valid JSON: \(error)")
            }
            guard case .string(let kind)? = value["type"] else {
                throw KeywordStoreError.failed("\(source):\(number): expected a JSON object with a \"type\" of \"keywords\" or \"feedback\"")
            }
            switch kind {
            case "keywords":
                guard overlay == nil else { throw KeywordStoreError.failed("\(source):\(number): a second \"keywords\" line") }
                let keywords: KeywordsLine
                do {
                    keywords = try JSONDecoding.decode(KeywordsLine.self, from: value)
                } catch {
                    throw KeywordStoreError.failed("\(source):\(number): a \"keywords\" line needs \"added\" and \"removed\" arrays of strings (\(error))")
                }
                do {
                    overlay = try checkedOverlay(added: keywords.added, removed: keywords.removed)
                } catch {
                    throw KeywordStoreError.failed("\(source):\(number): \(error)")
                }
            case "feedback":
                let record: FeedbackRecord
                do {
                    record = try FeedbackRules.checked(try FeedbackLine.decode(value))
                } catch {
                    throw KeywordStoreError.failed("\(source):\(number): \(error)")
                }
                if let previous = records.last, record.id <= previous.id {
                    throw KeywordStoreError.failed("\(source):\(number): record id \(record.id) does not follow \(previous.id): "
                        + "ids must increase line by line")
                }
                records.append(record)
            default:
                throw KeywordStoreError.failed("\(source):\(number): unknown type '\(kind.prefix(40))'")
            }
        }
        if let overlay {
            try store.replaceOverlay(overlay) { (overlay: KeywordOverlay) throws(KeywordStoreError) in
                do {
                    try KeywordRules.checkListSize(overlay.applied(to: base).count, previous: nil, limit: maxKeywords)
                } catch {
                    throw .failed("\(source): \(error)")
                }
            }
        }
        let stored = records.isEmpty ? 0 : try store.importFeedback(records)
        return ImportSummary(added: overlay?.added.count ?? 0, removed: overlay?.removed.count ?? 0,
                             feedbackRead: records.count, feedbackStored: stored)
    }

    /// An archive's keyword lists by the API's keyword rules (`KeywordRules.cleaned`, as a keyword change is
    /// checked), without repeats; a keyword in both lists is an error.
    static func checkedOverlay(added: [String], removed: [String]) throws(KeywordProblem) -> KeywordOverlay {
        func clean(_ list: [String], _ field: String) throws(KeywordProblem) -> [String] {
            var seen = Set<String>()
            var result: [String] = []
            for (index, raw) in list.enumerated() {
                let keyword = try KeywordRules.cleaned(raw, field: "\(field)[\(index)]")
                if seen.insert(keyword).inserted { result.append(keyword) }
            }
            return result
        }
        let overlay = KeywordOverlay(added: try clean(added, "added"), removed: try clean(removed, "removed"))
        let addedSet = Set(overlay.added)
        if let index = removed.firstIndex(where: { addedSet.contains(KeywordRules.canonical($0)) }) {
            throw KeywordProblem(field: "removed[\(index)]", problem: "is also in 'added'")
        }
        return overlay
    }

    private struct KeywordsLine: Decodable {
        var added: [String]
        var removed: [String]
    }
}
