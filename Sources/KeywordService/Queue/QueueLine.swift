// The JSON form of queue items and decisions: one line of the file store's queue log, and the document the
// PostgreSQL store keeps per item. Written with JSONWriter, read with the strict reader.
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

    /// Reads one line; the error says what is wrong (the caller adds the file and line number).
    package static func decode(_ line: some Collection<UInt8>) throws(KeywordStoreError) -> QueueLine {
        let wire: Wire
        do {
            wire = try JSONDecoding.decode(Wire.self, from: Array(line))
        } catch {
            throw .failed("not a queue record: \(error)")
        }
        switch (wire.item, wire.decision, wire.commit) {
        case (let item?, nil, nil): return .item(try item.value())
        case (nil, let decision?, nil): return .decision(try decision.value())
        case (nil, nil, true?): return .commit
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
            return try JSONDecoding.decode(WireItem.self, from: Array(text.utf8)).value()
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
        }
    }

    // MARK: Wire shapes (strictly decoded)

    private struct Wire: Decodable {
        var item: WireItem?
        var decision: WireDecision?
        var commit: Bool?
    }

    private struct WireSuggestion: Decodable {
        var keyword: String
        var confidence: Double?
    }

    private struct WireVote: Decodable {
        var annotator: String
        var keywords: [String]
        var decision: Int64
        var at: Int64
        var value: QueueVote { QueueVote(annotator: annotator, keywords: keywords, decision: decision, at: at) }
    }

    private struct WireHold: Decodable {
        var annotator: String
        var lease: String
        var since: Int64
        var until: Int64
    }

    private struct WireSkip: Decodable {
        var annotator: String
        var until: Int64
    }

    private struct WireItem: Decodable {
        var id: String
        var name: String
        var model: String?
        var suggestions: [WireSuggestion]
        var enqueued_at: Int64
        var overlap: Bool
        var model_keyword: String?
        var audit: Bool
        var votes: [WireVote]
        var holds: [WireHold]
        var skips: [WireSkip]
        var flag: WireVote?

        func value() throws(KeywordStoreError) -> QueueItem {
            guard !id.isEmpty else { throw .failed("not a queue item: 'id' is empty") }
            var item = QueueItem(id: id, name: name, model: model,
                                 suggestions: suggestions.map { QueueSuggestion(keyword: $0.keyword, confidence: $0.confidence) },
                                 enqueuedAt: enqueued_at, overlap: overlap, modelKeyword: model_keyword, audit: audit)
            item.votes = votes.map(\.value)
            item.holds = holds.map { QueueHold(annotator: $0.annotator, lease: $0.lease, since: $0.since, until: $0.until) }
            item.skips = skips.map { QueueSkip(annotator: $0.annotator, until: $0.until) }
            item.flag = flag?.value
            return item
        }
    }

    private struct WireDecision: Decodable {
        var id: Int64
        var annotator: String
        var item: String
        var kind: String
        var lease: String
        var keywords: [String]
        var feedback: [Int64]
        var at: Int64
        var seconds: Double
        var undone: Bool

        func value() throws(KeywordStoreError) -> QueueDecision {
            guard let kind = QueueDecisionKind(rawValue: kind) else {
                throw .failed("not a queue decision: 'kind' must be 'label', 'skip' or 'flag'")
            }
            return QueueDecision(id: id, annotator: annotator, item: item, kind: kind, lease: lease, keywords: keywords,
                                 feedback: feedback, at: at, seconds: seconds, undone: undone)
        }
    }
}
