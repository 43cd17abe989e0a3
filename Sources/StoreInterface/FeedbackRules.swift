// What makes a feedback record acceptable: one rule set for `POST /v1/feedback` and for `store import`.
import Foundation
import Platform

/// The rules every stored feedback decision follows, wherever it comes from. The API checks the JSON types and
/// maps each `FeedbackProblem` to its error code; an import names the archive line. Validity only: a keyword
/// need not be in the served list (a correction names one the model lacks).
public enum FeedbackRules {
    /// Longest client id, model and annotator, in Unicode code points.
    public static let maxLabelCodePoints = 200
    /// Largest record id a store gives or imports: 2^53 − 1, the largest integer every JSON client (a
    /// JavaScript page included) reads exactly.
    public static let maxRecordID: Int64 = (1 << 53) - 1
    /// Largest record id an import may give a record: 2^52, half the space. New records take ids above the largest
    /// one stored, so an archive cannot use up the ids: 2^52 remain for new records whatever it holds.
    public static let maxImportedRecordID: Int64 = 1 << 52

    /// Refuses a batch of imported records when one has an id an import may not give (see `maxImportedRecordID`);
    /// every store's import checks it, so no way in can leave a store without ids for new records.
    public static func checkImportable(_ records: [FeedbackRecord]) throws(KeywordStoreError) {
        guard let record = records.first(where: { !(1...maxImportedRecordID).contains($0.id) }) else { return }
        throw .failed("record id \(record.id) cannot be imported (an import gives ids from 1 to \(maxImportedRecordID), "
            + "so ids always remain for new records); nothing was stored")
    }

    /// The limits that an API configuration may change; the defaults are the API's.
    public struct Limits: Sendable, Equatable {
        public var maxNameCodePoints = NameRules.maxCodePoints
        public var maxPaddingCodePoints = NameRules.maxPaddingCodePoints
        public var maxKeywordCodePoints = KeywordRules.maxCodePoints
        /// Keywords in `shown`: the API's largest `k`.
        public var maxShown = 50
        public init() {}
    }

    /// Where a record comes from: a client (`POST /v1/feedback`), which may not write client ids in the queue's
    /// namespace, or an archive (`store import`), which keeps them so that an export imports again.
    public enum Origin: Sendable, Equatable {
        case client
        case archive
    }

    /// The client ids the annotation queue gives its labels' feedback start with this: a namespace clients cannot
    /// write, so a record posted before cannot take a label's id.
    public static let queueIDPrefix = "queue:"

    /// The client id of the feedback record that `annotator`'s `attempt`-th decision on queue item `item` writes
    /// for `keyword`: the prefix, then the SHA-256 of the four parts joined by NUL, which none of them may hold
    /// (item ids and annotators refuse control characters, keywords too). Unambiguous whatever the parts hold,
    /// and 70 characters whatever their lengths, so it fits the client id's limit.
    public static func queueClientID(item: String, annotator: String, attempt: Int, keyword: String) -> String {
        queueIDPrefix + SHA256.hex(Array("\(item)\u{0}\(annotator)\u{0}\(attempt)\u{0}\(keyword)".utf8))
    }

    /// The item with its name and keywords trimmed (and folded as the keyword rules fold them) and its client id
    /// in Unicode NFC, or the first problem, in the order name, keyword, shown, model, annotator, id. A client's
    /// id may not start with `queueIDPrefix`.
    public static func checked(_ item: FeedbackItem, field prefix: String = "", origin: Origin = .client,
                               limits: Limits = Limits()) throws(FeedbackProblem) -> FeedbackItem {
        var item = item
        do {
            item.name = try NameRules.checked(item.name, maxCodePoints: limits.maxNameCodePoints,
                                              maxPadding: limits.maxPaddingCodePoints)
        } catch {
            throw FeedbackProblem(field: prefix + "name", kind: .name(error), message: error.message(field: prefix + "name"))
        }
        item.keyword = try keyword(item.keyword, field: prefix + "keyword", limits: limits)
        guard item.shown.count <= limits.maxShown else {
            throw FeedbackProblem(field: prefix + "shown", kind: .shownCount,
                                  message: "'\(prefix)shown' holds at most \(limits.maxShown) keywords")
        }
        for index in item.shown.indices {
            item.shown[index] = try keyword(item.shown[index], field: "\(prefix)shown[\(index)]", limits: limits)
        }
        item.model = try item.model.map { (text: String) throws(FeedbackProblem) -> String in
            try label(text, field: prefix + "model", kind: .model)
        }
        item.annotator = try item.annotator.map { (text: String) throws(FeedbackProblem) -> String in
            try label(text, field: prefix + "annotator", kind: .annotator)
        }
        item.clientID = try item.clientID.map { (text: String) throws(FeedbackProblem) -> String in
            // The length is the stored form's: NFC can lengthen text.
            let id = try label(clientKey(text), field: prefix + "id", kind: .clientID)
            guard origin == .archive || !id.hasPrefix(queueIDPrefix) else {
                throw FeedbackProblem(field: prefix + "id", kind: .clientID,
                                      message: "'\(prefix)id' may not start with '\(queueIDPrefix)': the annotation queue's labels use those ids")
            }
            return id
        }
        return item
    }

    /// A record as an import gives it: its id (1…`maxImportedRecordID`) and time (`UTCTime.isStoredForm`), then the item
    /// by `checked`.
    public static func checked(_ record: FeedbackRecord, limits: Limits = Limits()) throws(FeedbackProblem) -> FeedbackRecord {
        guard record.id >= 1, record.id <= maxImportedRecordID else {
            throw FeedbackProblem(field: "id", kind: .recordID,
                                  message: "'id' \(record.id) is not a record id an import may give (an integer from 1 to \(maxImportedRecordID), so ids always remain for new records)")
        }
        guard UTCTime.isStoredForm(record.receivedAt) else {
            throw FeedbackProblem(field: "received_at", kind: .receivedAt,
                                  message: "'received_at' is not a UTC time as stores write it (2026-01-31T12:00:00.000Z)")
        }
        var record = record
        record.item = try checked(record.item, origin: .archive, limits: limits)
        return record
    }

    /// A short label (client id, model, annotator, a keyword change's actor): 1…`maxLabelCodePoints` code points,
    /// no control characters.
    public static func label(_ text: String, field: String, kind: FeedbackProblem.Kind) throws(FeedbackProblem) -> String {
        guard !text.isEmpty, KeywordRules.fitsCodePoints(text, maxLabelCodePoints) else {
            throw FeedbackProblem(field: field, kind: kind, message: "'\(field)' must be 1 to \(maxLabelCodePoints) characters")
        }
        guard !text.containsControlCharacter else {
            throw FeedbackProblem(field: field, kind: kind, message: "'\(field)' contains a control character")
        }
        return text
    }

    /// The form a client id is stored and compared in, by every store: Unicode NFC, so `é` and `e` + U+0301 are one id
    /// whether the store compares Swift strings (canonical equivalence) or bytes (PostgreSQL).
    public static func clientKey(_ id: String) -> String {
        // ASCII text is its own NFC form.
        id.utf8.allSatisfy { $0 < 0x80 } ? id : id.precomposedStringWithCanonicalMapping
    }

    private static func keyword(_ raw: String, field: String, limits: Limits) throws(FeedbackProblem) -> String {
        do {
            return try KeywordRules.cleaned(raw, field: field, maxCodePoints: limits.maxKeywordCodePoints,
                                            maxPadding: limits.maxPaddingCodePoints)
        } catch {
            throw FeedbackProblem(field: field, kind: .keyword, message: "\(error)")
        }
    }
}

/// A feedback field that breaks `FeedbackRules`: which one (`items[3].name`), what kind of rule, and a sentence.
public struct FeedbackProblem: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case name(NameRules.Problem)
        case keyword
        case shownCount
        case model
        case annotator
        case clientID
        case recordID
        case receivedAt
    }
    public var field: String
    public var kind: Kind
    public var message: String
    public var description: String { message }
}

extension FeedbackItem {
    /// Whether `other` records the same decision (name, keyword, action, shown, model, annotator), compared as
    /// Unicode text (canonically equivalent strings are equal): a retry with the same client id must match.
    public func sameDecision(as other: FeedbackItem) -> Bool {
        name == other.name && keyword == other.keyword && action == other.action && shown == other.shown
            && model == other.model && annotator == other.annotator
    }
}
