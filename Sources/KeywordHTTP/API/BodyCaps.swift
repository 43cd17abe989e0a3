// The byte cap of each route's request body, derived from the limits the OpenAPI document states, so that no
// body the schema allows is refused for its size.
import APICore
import StoreInterface

/// The largest request body each route's schema allows, in bytes (`JSONSize`: every string at its `maxLength`
/// in the longest form JSON allows, every array at its `maxItems`, every optional member present, white space in
/// every gap). The queue's routes have theirs in `QueueBodyCaps`.
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
    /// The largest body one `POST /v1/suggest` schema allows (JSON or form), which `suggest` must not be below.
    public var suggestBound: Int

    /// White space allowed between two tokens, and the bytes of a number, as the OpenAPI document states them.
    public static let whitespaceBytes = JSONSize.whitespaceBytes
    public static let numberBytes = JSONSize.numberBytes

    public init(_ limits: APILimits) {
        let name = JSONSize.string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)
        let keyword = JSONSize.string(limits.maxKeywordCharacters, padding: limits.maxPaddingCharacters)
        let label = JSONSize.string(FeedbackRules.maxLabelCodePoints)
        let flag = 5  // false
        let json = JSONSize.object([("name", name), ("k", JSONSize.numberBytes), ("explain", flag)])
        // name=…&k=…&explain=…: each code point percent-encoded (4 UTF-8 bytes → 12, white space 3 → 9).
        let form = "name=".count + 12 * limits.maxNameCharacters + 9 * limits.maxPaddingCharacters
            + "&k=".count + 3 * JSONSize.numberBytes + "&explain=".count + 3 * flag
        suggestBound = max(json, form)
        suggest = limits.maxSuggestBodyBytes
        batch = JSONSize.object([("names", JSONSize.array(limits.maxBatchNames, name)), ("k", JSONSize.numberBytes),
                                 ("explain", flag)])
        let list = JSONSize.array(limits.maxKeywordChanges, keyword)
        keywords = JSONSize.object([("add", list), ("remove", list), ("actor", label)])
        let item = JSONSize.object([
            ("id", label), ("name", name), ("keyword", keyword), ("action", JSONSize.string("correct".count)),
            ("shown", JSONSize.array(limits.maxK, keyword)), ("model", label), ("annotator", label),
        ])
        feedback = max(item, JSONSize.object([("items", JSONSize.array(limits.maxFeedbackItems, item))]))
    }
}

/// The most JSON values each route's JSON body may hold (every object, array, string, number and literal, the
/// body itself included), so that parsing a body costs memory in proportion to what its schema allows, not to
/// its bytes: a parsed value costs tens of bytes however short its text (`1,` is two bytes), so within a byte
/// cap alone a body of tiny values would cost over twenty times its size.
///
/// Each is twice the most values a schema-valid body holds (every array at its `maxItems`, every optional member
/// present), plus `JSONSize.valueSlack`, computed from `APILimits` like `BodyCaps`: a schema-valid body is never
/// refused, and a body a little over a limit (1001 names) still gets that limit's own error code; a body past
/// this gets 400 `too_many_values` as soon as the parser reaches the first value beyond, before the rest is
/// parsed. The queue's routes have theirs in `QueueValueCaps`.
public struct ValueCaps: Sendable, Equatable {
    /// `POST /v1/suggest` as JSON.
    public var suggest: Int
    /// `POST /v1/suggest/batch`.
    public var batch: Int
    /// `POST /v1/keywords`.
    public var keywords: Int
    /// `POST /v1/feedback` (one item or `{"items": [...]}`).
    public var feedback: Int

    public init(_ limits: APILimits) {
        // {"name", "k", "explain"}
        suggest = JSONSize.values(1 + 3)
        // {"names": [maxBatchNames strings], "k", "explain"}
        batch = JSONSize.values(1 + 1 + limits.maxBatchNames + 2)
        // {"add": [maxKeywordChanges], "remove": [maxKeywordChanges], "actor"}
        keywords = JSONSize.values(1 + 2 * (1 + limits.maxKeywordChanges) + 1)
        // An item: the object, each of its fields, and `shown` at maxK keywords.
        let item = 1 + FeedbackDecoding.fields.count + limits.maxK
        feedback = JSONSize.values(max(item, 1 + 1 + limits.maxFeedbackItems * item))
    }
}
