// The byte cap of each route's request body, derived from the limits the OpenAPI document states, so that no
// body the schema allows is refused for its size.
import APICore

/// The largest request body each route's schema allows, in bytes: every string at its `maxLength` with every
/// code point written in the longest form JSON allows (a `\uXXXX` escape; an astral code point as a surrogate
/// pair, 12 bytes; the white space around a name or keyword is BMP, 6 bytes), every array at its `maxItems`,
/// every optional member present, object keys escaped too, `k` written in up to `numberBytes` bytes, and up to
/// `whitespaceBytes` of insignificant white space between any two JSON tokens (JSON itself bounds neither, so
/// these two are the allowance: pretty-printers use far less).
///
/// The caps are computed from `APILimits`, the constants `/openapi.json` states, so raising a limit there raises
/// the cap with it. A cap that the schema's rules in descriptions tighten further (names × k, add + remove) is
/// still computed from the schema's own `maxItems`, so such a body gets its 400 with its error code, not a 413.
public struct BodyCaps: Sendable, Equatable {
    /// `POST /v1/suggest`: `APILimits.maxSuggestBodyBytes` (64 KiB), well above `suggestBound`.
    public var suggest: Int
    /// `POST /v1/suggest/batch`.
    public var batch: Int
    /// `POST /v1/keywords`.
    public var keywords: Int
    /// `POST /v1/feedback`.
    public var feedback: Int
    /// `POST /v1/queue/items`, `/v1/queue/lease`, `/v1/queue/decisions`, `/v1/queue/undo`.
    public var queueItems: Int
    public var queueLease: Int
    public var queueDecisions: Int
    public var queueUndo: Int
    /// The largest body one `POST /v1/suggest` schema allows (JSON or form), which `suggest` must not be below.
    public var suggestBound: Int

    public static let whitespaceBytes = 32
    public static let numberBytes = 32

    public init(_ limits: APILimits) {
        let name = Self.string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)
        let keyword = Self.string(limits.maxKeywordCharacters, padding: limits.maxPaddingCharacters)
        let label = Self.string(FeedbackDecoding.maxLabelCharacters)
        let flag = 5  // false
        let json = Self.object([("name", name), ("k", Self.numberBytes), ("explain", flag)])
        // name=…&k=…&explain=…: each code point percent-encoded (4 UTF-8 bytes → 12, white space 3 → 9).
        let form = "name=".count + 12 * limits.maxNameCharacters + 9 * limits.maxPaddingCharacters
            + "&k=".count + 3 * Self.numberBytes + "&explain=".count + 3 * flag
        suggestBound = max(json, form)
        suggest = limits.maxSuggestBodyBytes
        batch = Self.object([("names", Self.array(limits.maxBatchNames, name)), ("k", Self.numberBytes), ("explain", flag)])
        let list = Self.array(limits.maxKeywordChanges, keyword)
        keywords = Self.object([("add", list), ("remove", list), ("actor", label)])
        let item = Self.object([
            ("id", label), ("name", name), ("keyword", keyword), ("action", Self.string("correct".count)),
            ("shown", Self.array(limits.maxK, keyword)), ("model", label), ("annotator", label),
        ])
        feedback = max(item, Self.object([("items", Self.array(limits.maxFeedbackItems, item))]))
        queueItems = Self.object([("items", Self.array(QueueDecoding.maxItems, Self.object([("id", label), ("name", name)])))])
        queueLease = Self.object([("annotator", label), ("n", Self.numberBytes), ("order", Self.string("uncertain".count)),
                                  ("keyword", keyword)])
        queueDecisions = Self.object([
            ("lease", label), ("annotator", label), ("id", label), ("ids", Self.array(QueueDecoding.maxItems, label)),
            ("keywords", Self.array(QueueDecoding.maxLabelKeywords, keyword)), ("action", Self.string("skip".count)),
        ])
        queueUndo = Self.object([("annotator", label)])
    }

    /// The largest of the caps: the HTTP layer's `maxBodyBytes` must be at least this.
    public var largest: Int { max(suggest, batch, keywords, feedback, queueItems, queueDecisions) }

    /// A JSON string of `codePoints` code points, each a surrogate-pair escape, plus `padding` escaped BMP ones.
    static func string(_ codePoints: Int, padding: Int = 0) -> Int { 2 + 12 * codePoints + 6 * padding }

    /// An object with these members (key, largest value), every key escaped, white space in every gap.
    static func object(_ members: [(String, Int)]) -> Int {
        let content = members.reduce(0) { $0 + string($1.0.count) + 1 + $1.1 } + max(0, members.count - 1)
        return 2 + content + whitespaceBytes * (4 * members.count + 2)
    }

    /// An array of `count` items of at most `item` bytes, white space in every gap.
    static func array(_ count: Int, _ item: Int) -> Int {
        2 + count * item + max(0, count - 1) + whitespaceBytes * (2 * count + 2)
    }
}

/// The most JSON values each route's JSON body may hold (every object, array, string, number and literal, the
/// body itself included), so that parsing a body costs memory in proportion to what its schema allows, not to
/// its bytes: a parsed value costs tens of bytes however short its text (`1,` is two bytes), so within a byte
/// cap alone a body of tiny values would cost over twenty times its size.
///
/// Each is twice the most values a schema-valid body holds (every array at its `maxItems`, every optional member
/// present), plus `slack`, computed from `APILimits` like `BodyCaps`: a schema-valid body is never refused, and a
/// body a little over a limit (1001 names) still gets that limit's own error code; a body past this gets 400
/// `too_many_values` as soon as the parser reaches the first value beyond, before the rest is parsed.
public struct ValueCaps: Sendable, Equatable {
    /// `POST /v1/suggest` as JSON.
    public var suggest: Int
    /// `POST /v1/suggest/batch`.
    public var batch: Int
    /// `POST /v1/keywords`.
    public var keywords: Int
    /// `POST /v1/feedback` (one item or `{"items": [...]}`).
    public var feedback: Int

    /// The queue routes (see `BodyCaps`).
    public var queueItems: Int
    public var queueLease: Int
    public var queueDecisions: Int
    public var queueUndo: Int

    public static let slack = 16

    public init(_ limits: APILimits) {
        // {"name", "k", "explain"}
        suggest = Self.allowance(1 + 3)
        // {"names": [maxBatchNames strings], "k", "explain"}
        batch = Self.allowance(1 + 1 + limits.maxBatchNames + 2)
        // {"add": [maxKeywordChanges], "remove": [maxKeywordChanges], "actor"}
        keywords = Self.allowance(1 + 2 * (1 + limits.maxKeywordChanges) + 1)
        // An item: the object, each of its fields, and `shown` at maxK keywords.
        let item = 1 + FeedbackDecoding.fields.count + limits.maxK
        feedback = Self.allowance(max(item, 1 + 1 + limits.maxFeedbackItems * item))
        // {"items": [{"id", "name"}…]}
        queueItems = Self.allowance(1 + 1 + QueueDecoding.maxItems * 3)
        queueLease = Self.allowance(1 + QueueDecoding.leaseFields.count)
        // Every field, `ids` at its most and `keywords` at theirs.
        queueDecisions = Self.allowance(1 + QueueDecoding.decisionFields.count + QueueDecoding.maxItems + QueueDecoding.maxLabelKeywords)
        queueUndo = Self.allowance(1 + 1)
    }

    /// The cap for a schema whose largest body holds `values` values.
    static func allowance(_ values: Int) -> Int { 2 * values + slack }
}
