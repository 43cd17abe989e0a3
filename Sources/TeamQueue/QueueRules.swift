// What makes a queue record acceptable, wherever it comes from: the API's requests, and what a store reads
// back (a queue log edited by hand, a database row). Validity only, as the feedback rules.
import Platform
import StoreInterface

/// The rules of the annotation queue's ids, annotator names and records.
public enum QueueRules {
    /// An item id or annotator name as every store keeps and compares it, by the keyword character rules: white
    /// space trimmed, NFKC (so ｂｏｂ and " bob" are bob), then 1…200 code points with a visible character and no
    /// control, format, line or paragraph separator, private-use or unassigned code point (spaces inside stay).
    /// One person cannot pass for two, and a name cannot hide a character that changes how others display.
    public static func key(_ text: String, field: String) throws(QueueRuleProblem) -> String {
        // The length is bounded as sent and in the stored form: NFKC can lengthen text.
        guard KeywordRules.fitsCodePoints(text, FeedbackRules.maxLabelCodePoints) else {
            throw QueueRuleProblem(field: field, message: "'\(field)' must be 1 to \(FeedbackRules.maxLabelCodePoints) characters")
        }
        let key = canonicalKey(text)
        if let problem = KeywordRules.problem(with: key, maxCodePoints: FeedbackRules.maxLabelCodePoints) {
            throw QueueRuleProblem(field: field, message: "'\(field)' \(problem)")
        }
        return key
    }

    /// The form an item id or annotator name is kept and compared in: trimmed and in NFKC, as keywords are.
    public static func canonicalKey(_ text: String) -> String { KeywordRules.canonical(text) }

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

    /// An id or annotator in the form `key` leaves it: a record read back is in canonical form, with no control
    /// characters. A key stored before the character rules held (an invisible character in an annotator's name)
    /// still reads, so a queue written then stays readable; new requests cannot add one.
    private static func stored(_ text: String, _ field: String) throws(QueueRuleProblem) {
        do {
            _ = try FeedbackRules.label(text, field: field, kind: .clientID)
        } catch {
            throw QueueRuleProblem(field: field, message: error.message)
        }
        guard canonicalKey(text).utf8.elementsEqual(text.utf8) else {
            throw QueueRuleProblem(field: field, message: "'\(field)' is not in the form stores keep (trimmed, NFKC)")
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
