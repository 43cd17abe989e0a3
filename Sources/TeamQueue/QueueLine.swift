// The JSON form of queue items and decisions: one line of the file store's queue log, and the document the
// PostgreSQL store keeps per item. Written with JSONWriter, read with the strict reader.
import StoreInterface
import StrictJSON

/// One line of the queue log: the latest state of an item, or a decision (a later line for the same id wins), or
/// the end of one operation's lines. Lines count only once their operation's commit line follows them, so an
/// operation cut short by a crash leaves nothing half done.
package enum QueueLine: Equatable {
    case item(QueueItem)
    case decision(QueueDecision)
    case commit

    /// The line, newline included.
    package func encoded() -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            switch self {
            case .item(let item): json.field("item") { Self.write(item, into: &$0) }
            case .decision(let decision): json.field("decision") { Self.write(decision, into: &$0) }
            case .commit: json.field("commit", bool: true)
            }
        }
        return json.bytes + [0x0A]
    }

    /// Reads one line; the error says what is wrong (the caller adds the file and line number). Fields are read
    /// straight from the parsed value (a log holds one line per change, so a process reading a large log reads
    /// hundreds of thousands); a field of the wrong type is an error naming it, fields it does not name are ignored.
    package static func decode(_ line: some Collection<UInt8>) throws(KeywordStoreError) -> QueueLine {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(line))
        } catch {
            throw .failed("not a queue record: \(error)")
        }
        let fields = try QueueFields(value, "")
        switch (fields.values["item"], fields.values["decision"], fields.values["commit"]) {
        case (let item?, nil, nil): return .item(try Self.item(QueueFields(item, "item.")))
        case (nil, let decision?, nil): return .decision(try Self.decision(QueueFields(decision, "decision.")))
        case (nil, nil, .bool(true)?): return .commit
        default: throw .failed("not a queue record: it must hold exactly one of 'item', 'decision' and 'commit' (true)")
        }
    }

    /// An item alone (the PostgreSQL document).
    package static func itemDocument(_ item: QueueItem) -> String {
        var json = JSONWriter()
        write(item, into: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    package static func item(fromDocument text: String) throws(KeywordStoreError) -> QueueItem {
        do {
            return try item(QueueFields(JSONParser.parse(Array(text.utf8)), ""))
        } catch let error as KeywordStoreError {
            throw error
        } catch {
            throw .failed("not a queue item: \(error)")
        }
    }

    static func write(_ item: QueueItem, into json: inout JSONWriter) {
        json.object { json in
            json.field("id", string: item.id)
            json.field("name", string: item.name)
            if let model = item.model { json.field("model", string: model) }
            json.field("suggestions") { json in
                json.array { json in
                    for suggestion in item.suggestions {
                        json.object { json in
                            json.field("keyword", string: suggestion.keyword)
                            if let confidence = suggestion.confidence, confidence.isFinite { json.field("confidence", number: confidence) }
                        }
                    }
                }
            }
            json.field("enqueued_at", int: Int(item.enqueuedAt))
            json.field("overlap", bool: item.overlap)
            if let keyword = item.modelKeyword { json.field("model_keyword", string: keyword) }
            json.field("audit", bool: item.audit)
            if let category = item.category { json.field("category", string: category) }
            if !item.firstIsHead { json.field("first_is_head", bool: false) }
            if let key = item.nameKey { json.field("name_key", string: key) }
            if let memory = item.memoryLabel {
                json.field("memory") { json in
                    json.object { json in
                        json.field("keywords") { json in json.array { json in for keyword in memory.keywords { json.string(keyword) } } }
                        json.field("annotators") { json in json.array { json in for name in memory.annotators { json.string(name) } } }
                    }
                }
            }
            json.field("votes") { json in json.array { json in for vote in item.votes { write(vote, into: &json) } } }
            json.field("holds") { json in
                json.array { json in
                    for hold in item.holds {
                        json.object { json in
                            json.field("annotator", string: hold.annotator)
                            json.field("lease", string: hold.lease)
                            json.field("since", int: Int(hold.since))
                            json.field("until", int: Int(hold.until))
                        }
                    }
                }
            }
            json.field("skips") { json in
                json.array { json in
                    for skip in item.skips {
                        json.object { json in
                            json.field("annotator", string: skip.annotator)
                            json.field("until", int: Int(skip.until))
                        }
                    }
                }
            }
            if let flag = item.flag { json.field("flag") { write(flag, into: &$0) } }
        }
    }

    private static func write(_ vote: QueueVote, into json: inout JSONWriter) {
        json.object { json in
            json.field("annotator", string: vote.annotator)
            json.field("keywords") { json in json.array { json in for keyword in vote.keywords { json.string(keyword) } } }
            json.field("decision", int: Int(vote.decision))
            json.field("at", int: Int(vote.at))
        }
    }

    static func write(_ decision: QueueDecision, into json: inout JSONWriter) {
        json.object { json in
            json.field("id", int: Int(decision.id))
            json.field("annotator", string: decision.annotator)
            json.field("item", string: decision.item)
            json.field("kind", string: decision.kind.rawValue)
            json.field("lease", string: decision.lease)
            json.field("keywords") { json in json.array { json in for keyword in decision.keywords { json.string(keyword) } } }
            json.field("feedback") { json in json.array { json in for id in decision.feedback { json.int(Int(id)) } } }
            json.field("at", int: Int(decision.at))
            json.field("seconds", number: decision.seconds)
            json.field("undone", bool: decision.undone)
            if let evidence = decision.evidence { json.field("evidence") { write(evidence, into: &$0) } }
        }
    }

    static func write(_ evidence: QueueEvidence, into json: inout JSONWriter) {
        json.object { json in
            json.field("model", string: evidence.model)
            json.field("keyword", string: evidence.keyword)
            json.field("confidence", number: evidence.confidence)
            if let category = evidence.category { json.field("category", string: category) }
            json.field("correct", bool: evidence.correct)
            json.field("audit", bool: evidence.audit)
            if !evidence.firstIsHead { json.field("first_is_head", bool: false) }
        }
    }

    /// Evidence alone (the PostgreSQL column).
    package static func evidenceDocument(_ evidence: QueueEvidence) -> String {
        var json = JSONWriter()
        write(evidence, into: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    package static func evidence(fromDocument text: String) throws(KeywordStoreError) -> QueueEvidence {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(text.utf8))
        } catch {
            throw .failed("not queue evidence: \(error)")
        }
        return try evidence(QueueFields(value, "evidence."))
    }

    // MARK: Reading

    private static func item(_ fields: QueueFields) throws(KeywordStoreError) -> QueueItem {
        let id = try fields.key("id")
        var suggestions: [QueueSuggestion] = []
        for (index, value) in try fields.array("suggestions").enumerated() {
            let suggestion = try QueueFields(value, fields.path + "suggestions[\(index)].")
            suggestions.append(QueueSuggestion(keyword: try suggestion.string("keyword"), confidence: try suggestion.optionalDouble("confidence")))
        }
        var item = QueueItem(id: id, name: try fields.string("name"), model: try fields.optionalString("model"),
                             suggestions: suggestions, enqueuedAt: try fields.int("enqueued_at"), overlap: try fields.bool("overlap"),
                             modelKeyword: try fields.optionalString("model_keyword"), audit: try fields.bool("audit"),
                             category: try fields.optionalString("category"))
        item.firstIsHead = try fields.optionalBool("first_is_head") ?? true
        for (index, value) in try fields.array("votes").enumerated() {
            item.votes.append(try vote(QueueFields(value, fields.path + "votes[\(index)].")))
        }
        for (index, value) in try fields.array("holds").enumerated() {
            let hold = try QueueFields(value, fields.path + "holds[\(index)].")
            item.holds.append(QueueHold(annotator: try hold.key("annotator"), lease: try hold.string("lease"),
                                        since: try hold.int("since"), until: try hold.int("until")))
        }
        for (index, value) in try fields.array("skips").enumerated() {
            let skip = try QueueFields(value, fields.path + "skips[\(index)].")
            item.skips.append(QueueSkip(annotator: try skip.key("annotator"), until: try skip.int("until")))
        }
        if let flag = fields.values["flag"], flag != .null { item.flag = try vote(QueueFields(flag, fields.path + "flag.")) }
        item.nameKey = try fields.optionalString("name_key")
        if let memory = fields.values["memory"], memory != .null {
            let label = try QueueFields(memory, fields.path + "memory.")
            item.memoryLabel = QueueMemoryLabel(keywords: try label.strings("keywords"),
                                                annotators: try label.strings("annotators").map(QueueRules.canonicalKey))
        }
        do {
            try QueueRules.check(item)
        } catch {
            throw .failed("not a queue item as the API stores it: \(fields.path)\(error.field): \(error.message)")
        }
        return item
    }

    private static func vote(_ fields: QueueFields) throws(KeywordStoreError) -> QueueVote {
        QueueVote(annotator: try fields.key("annotator"), keywords: try fields.strings("keywords"),
                  decision: try fields.int("decision"), at: try fields.int("at"))
    }

    private static func decision(_ fields: QueueFields) throws(KeywordStoreError) -> QueueDecision {
        guard let kind = QueueDecisionKind(rawValue: try fields.string("kind")) else {
            throw .failed("not a queue decision: '\(fields.path)kind' must be 'label', 'skip' or 'flag'")
        }
        var feedback: [Int64] = []
        for (index, value) in try fields.array("feedback").enumerated() {
            guard case .number(let number) = value, let id = number.integer(as: Int64.self) else {
                throw .failed("not a queue record: '\(fields.path)feedback[\(index)]' must be an integer")
            }
            feedback.append(id)
        }
        let decision = QueueDecision(id: try fields.int("id"), annotator: try fields.key("annotator"),
                                     item: try fields.key("item"), kind: kind, lease: try fields.string("lease"),
                                     keywords: try fields.strings("keywords"), feedback: feedback, at: try fields.int("at"),
                                     seconds: try fields.double("seconds"), undone: try fields.bool("undone"),
                                     evidence: try fields.values["evidence"].flatMap { value throws(KeywordStoreError) in
                                         value == .null ? nil : try evidence(QueueFields(value, fields.path + "evidence."))
                                     })
        do {
            try QueueRules.check(decision)
        } catch {
            throw .failed("not a queue decision as the API stores it: \(fields.path)\(error.field): \(error.message)")
        }
        return decision
    }
}

extension QueueLine {
    fileprivate static func evidence(_ fields: QueueFields) throws(KeywordStoreError) -> QueueEvidence {
        let evidence = QueueEvidence(model: try fields.string("model"), keyword: try fields.string("keyword"),
                                     confidence: try fields.double("confidence"),
                                     category: try fields.optionalString("category"), correct: try fields.bool("correct"),
                                     audit: try fields.bool("audit"),
                                     firstIsHead: try fields.optionalBool("first_is_head") ?? true)
        do {
            try QueueRules.check(evidence)
        } catch {
            throw .failed("not queue evidence as the API stores it: \(fields.path)\(error.field): \(error.message)")
        }
        return evidence
    }
}

/// The fields of one parsed object, read by type; an absent required field or one of another type is an error
/// that names it (`item.holds[2].until`).
private struct QueueFields {
    let values: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, _ path: String) throws(KeywordStoreError) {
        guard case .object(let values) = value else {
            throw .failed("not a queue record: '\(path.isEmpty ? "the line" : String(path.dropLast()))' must be an object")
        }
        self.values = values
        self.path = path
    }

    private func wrong(_ key: String, _ expected: String) -> KeywordStoreError {
        .failed("not a queue record: '\(path)\(key)' must be \(expected)")
    }

    func string(_ key: String) throws(KeywordStoreError) -> String {
        guard case .string(let text) = values[key] ?? .null else { throw wrong(key, "a string") }
        return text
    }

    /// An item id or annotator name, in the form stores keep it (`QueueRules.canonicalKey`): a record written
    /// before keys were kept in NFC reads as the key the API now uses.
    func key(_ key: String) throws(KeywordStoreError) -> String {
        QueueRules.canonicalKey(try string(key))
    }

    func optionalString(_ key: String) throws(KeywordStoreError) -> String? {
        guard let value = values[key], value != .null else { return nil }
        guard case .string(let text) = value else { throw wrong(key, "a string") }
        return text
    }

    func int(_ key: String) throws(KeywordStoreError) -> Int64 {
        guard case .number(let number) = values[key] ?? .null, let value = number.integer(as: Int64.self) else {
            throw wrong(key, "an integer")
        }
        return value
    }

    func double(_ key: String) throws(KeywordStoreError) -> Double {
        guard case .number(let number) = values[key] ?? .null else { throw wrong(key, "a number") }
        return number.value
    }

    func optionalDouble(_ key: String) throws(KeywordStoreError) -> Double? {
        guard let value = values[key], value != .null else { return nil }
        guard case .number(let number) = value else { throw wrong(key, "a number") }
        return number.value
    }

    func bool(_ key: String) throws(KeywordStoreError) -> Bool {
        guard case .bool(let flag) = values[key] ?? .null else { throw wrong(key, "true or false") }
        return flag
    }

    func optionalBool(_ key: String) throws(KeywordStoreError) -> Bool? {
        guard let value = values[key], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw wrong(key, "true or false") }
        return flag
    }

    func array(_ key: String) throws(KeywordStoreError) -> [JSONValue] {
        guard case .array(let items) = values[key] ?? .null else { throw wrong(key, "an array") }
        return items
    }

    func strings(_ key: String) throws(KeywordStoreError) -> [String] {
        var strings: [String] = []
        for (index, value) in try array(key).enumerated() {
            guard case .string(let text) = value else { throw wrong("\(key)[\(index)]", "a string") }
            strings.append(text)
        }
        return strings
    }
}
