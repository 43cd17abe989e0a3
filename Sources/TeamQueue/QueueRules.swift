// What makes a queue record acceptable, wherever it comes from: the API's requests, and what a store reads
// back (a queue log edited by hand, a database row). Validity only, as the feedback rules.
import Platform
import StoreInterface

/// The rules of the annotation queue's ids, annotator names and records.
public enum QueueRules {
    /// An item id or annotator name as every store keeps and compares it: 1…200 characters, no control
    /// characters, in Unicode NFC, so `é` and `e` + U+0301 are one id (or one annotator) in the file store, which
    /// compares Swift strings, and in PostgreSQL, which compares bytes.
    public static func key(_ text: String, field: String) throws(QueueRuleProblem) -> String {
        // The length is the stored form's: NFC can lengthen text (U+0958 is two code points in NFC).
        do {
            return try FeedbackRules.label(canonicalKey(text), field: field, kind: .clientID)
        } catch {
            throw QueueRuleProblem(field: field, message: error.message)
        }
    }

    /// The form an item id or annotator name is kept and compared in: Unicode NFC.
    public static func canonicalKey(_ text: String) -> String { FeedbackRules.clientKey(text) }

    /// Checks an item a store read: every field in the form the API stores it.
    public static func check(_ item: QueueItem) throws(QueueRuleProblem) {
        try stored(item.id, "id")
        let name: String
        do {
            name = try NameRules.checked(item.name)
        } catch {
            throw QueueRuleProblem(field: "name", message: error.message(field: "name"))
        }
        guard name.utf8.elementsEqual(item.name.utf8) else {
            throw QueueRuleProblem(field: "name", message: "'name' has white space around it")
        }
        if let model = item.model { try modelVersion(model) }
        for (index, suggestion) in item.suggestions.enumerated() {
            try modelKeyword(suggestion.keyword, "suggestions[\(index)].keyword")
            if let confidence = suggestion.confidence, !(0...1).contains(confidence) {
                throw QueueRuleProblem(field: "suggestions[\(index)].confidence", message: "a confidence lies in 0…1")
            }
        }
        if let keyword = item.modelKeyword { try modelKeyword(keyword, "model_keyword") }
        if let category = item.category { try modelKeyword(category, "category") }
        if let memory = item.memoryLabel {
            guard !memory.keywords.isEmpty else { throw QueueRuleProblem(field: "memory.keywords", message: "a memory label has a keyword") }
            for (index, keyword) in memory.keywords.enumerated() { try modelKeyword(keyword, "memory.keywords[\(index)]") }
            for (index, annotator) in memory.annotators.enumerated() { try stored(annotator, "memory.annotators[\(index)]") }
        }
        try time(item.enqueuedAt, "enqueued_at")
        for (index, vote) in item.votes.enumerated() { try check(vote, "votes[\(index)].") }
        if let flag = item.flag { try check(flag, "flag.") }
        for (index, hold) in item.holds.enumerated() {
            try stored(hold.annotator, "holds[\(index)].annotator")
            try label(hold.lease, "holds[\(index)].lease")
            try time(hold.since, "holds[\(index)].since")
            try time(hold.until, "holds[\(index)].until")
        }
        for (index, skip) in item.skips.enumerated() {
            try stored(skip.annotator, "skips[\(index)].annotator")
            try time(skip.until, "skips[\(index)].until")
        }
    }

    /// Checks a decision a store read.
    public static func check(_ decision: QueueDecision) throws(QueueRuleProblem) {
        guard decision.id >= 1 else { throw QueueRuleProblem(field: "id", message: "'id' must be 1 or more") }
        try stored(decision.annotator, "annotator")
        try stored(decision.item, "item")
        try label(decision.lease, "lease")
        for (index, keyword) in decision.keywords.enumerated() { try labelKeyword(keyword, "keywords[\(index)]") }
        for (index, id) in decision.feedback.enumerated() where !(1...FeedbackRules.maxRecordID).contains(id) {
            throw QueueRuleProblem(field: "feedback[\(index)]", message: "'feedback[\(index)]' is not a record id")
        }
        try time(decision.at, "at")
        guard decision.seconds.isFinite, decision.seconds >= 0 else {
            throw QueueRuleProblem(field: "seconds", message: "'seconds' must be 0 or more")
        }
    }

    /// Checks evidence a store read: a model version, a keyword and category as suggestions name them, a
    /// confidence in 0…1.
    public static func check(_ evidence: QueueEvidence) throws(QueueRuleProblem) {
        try modelVersion(evidence.model)
        try modelKeyword(evidence.keyword, "keyword")
        if let category = evidence.category { try modelKeyword(category, "category") }
        guard evidence.confidence.isFinite, (0...1).contains(evidence.confidence) else {
            throw QueueRuleProblem(field: "confidence", message: "a confidence lies in 0…1")
        }
    }

    private static func check(_ vote: QueueVote, _ prefix: String) throws(QueueRuleProblem) {
        try stored(vote.annotator, prefix + "annotator")
        for (index, keyword) in vote.keywords.enumerated() { try labelKeyword(keyword, "\(prefix)keywords[\(index)]") }
        try time(vote.at, prefix + "at")
    }

    /// An id or annotator as `key` leaves it.
    private static func stored(_ text: String, _ field: String) throws(QueueRuleProblem) {
        guard try key(text, field: field).utf8.elementsEqual(text.utf8) else {
            throw QueueRuleProblem(field: field, message: "'\(field)' is not in Unicode NFC, the form stores keep")
        }
    }

    /// The version of the model that suggested the item, as the serving model names itself: no control characters.
    private static func modelVersion(_ text: String) throws(QueueRuleProblem) {
        guard !text.containsControlCharacter else {
            throw QueueRuleProblem(field: "model", message: "'model' contains a control character")
        }
    }

    private static func label(_ text: String, _ field: String) throws(QueueRuleProblem) {
        do {
            _ = try FeedbackRules.label(text, field: field, kind: .model)
        } catch {
            throw QueueRuleProblem(field: field, message: error.message)
        }
    }

    /// A keyword an annotator gave: as `KeywordRules` stores it.
    private static func labelKeyword(_ keyword: String, _ field: String) throws(QueueRuleProblem) {
        if let problem = KeywordRules.problem(with: keyword) {
            throw QueueRuleProblem(field: field, message: "'\(field)' \(problem)")
        }
        guard KeywordRules.canonical(keyword).utf8.elementsEqual(keyword.utf8) else {
            throw QueueRuleProblem(field: field, message: "'\(field)' is not in the form keywords are stored in (NFKC, trimmed)")
        }
    }

    /// A keyword of the model's list, as a suggestion names it: not empty, no control characters.
    private static func modelKeyword(_ keyword: String, _ field: String) throws(QueueRuleProblem) {
        guard !keyword.isEmpty, !keyword.containsControlCharacter else {
            throw QueueRuleProblem(field: field, message: "'\(field)' must be a keyword without control characters")
        }
    }

    private static func time(_ time: QueueTime, _ field: String) throws(QueueRuleProblem) {
        guard time >= 0 else { throw QueueRuleProblem(field: field, message: "'\(field)' must be a time after 1970") }
    }
}

/// A queue field that breaks `QueueRules`: which one, and a sentence.
public struct QueueRuleProblem: Error, Equatable, CustomStringConvertible {
    public var field: String
    public var message: String
    public var description: String { message }
}
