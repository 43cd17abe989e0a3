// The contract between the suggestion engine (model + keyword index) and its users (HTTP, CLI).
import DecisionMemory
import KeywordIndex
import ModelStorage
import StoreInterface

/// One token of a product name and how much attention it received for a keyword.
public struct TokenWeight: Sendable, Equatable, Codable {
    public var token: String
    public var weight: Float
    public init(token: String, weight: Float) {
        self.token = token
        self.weight = weight
    }
}

/// Where a suggestion comes from.
public enum SuggestionSource: String, Sendable, Equatable {
    /// The model ranked it.
    case model
    /// Annotators decided it for a name with the same name key (the decision memory).
    case memory
}

/// The decided name behind a suggestion from the decision memory.
public struct RememberedDecision: Sendable, Equatable, Codable {
    /// The name as it was decided.
    public var name: String
    /// How many annotators decided for the keyword.
    public var annotators: Int
    public init(name: String, annotators: Int) {
        self.name = name
        self.annotators = annotators
    }
}

/// One suggested keyword with its score (higher is better).
public struct Suggestion: Sendable, Equatable, Codable {
    public var keyword: String
    public var score: Float
    /// The calibrated probability that the keyword is acceptable for the name; nil when the model has no
    /// calibration. For a remembered keyword, how well the decisions support it (`RememberedKeyword.confidence`).
    public var confidence: Double?
    /// Per-token attention weights; present only when an explanation was asked for.
    public var weights: [TokenWeight]?
    /// The decision behind a remembered keyword; nil for the model's own suggestions.
    public var remembered: RememberedDecision?
    public init(keyword: String, score: Float, confidence: Double? = nil, weights: [TokenWeight]? = nil,
                remembered: RememberedDecision? = nil) {
        self.keyword = keyword
        self.score = score
        self.confidence = confidence
        self.weights = weights
        self.remembered = remembered
    }

    public var source: SuggestionSource { remembered == nil ? .model : .memory }
}

/// Why a name got no suggestions.
public enum NoSuggestionReason: String, Sendable, Equatable, CaseIterable {
    /// Nothing of the name is left after normalisation (送料無料, 1kg, ★★★, an emoji, a zero-width space).
    case noContentTokens = "no_content_tokens"
    /// The name says only where the product comes from (淡路島産, 産地：新潟, 長崎県): every content token is a place
    /// or an origin word, one marks the origin, and none of the best keywords is written in it.
    case onlyPlaceNames = "only_place_names"
}

/// The answer for one product name.
public struct SuggestionResult: Sendable, Equatable {
    public var name: String
    /// Surfaces of the tokens the model used; filled when an explanation was asked for.
    public var tokens: [String]?
    public var suggestions: [Suggestion]
    /// True when the top suggestion's confidence clears the model's auto-accept threshold and it is the head of
    /// the name (`firstIsHead`).
    public var autoAccept: Bool
    /// Whether the first suggestion can be the kind of product, as the name's structure tells (`NameHead`): false
    /// when a keyword written after it, or a describing word right after it, shows it to be a flavour, an
    /// ingredient or a use, or when a variety or brand name spells another kind beside it. True for an engine that
    /// does not read the structure.
    public var firstIsHead: Bool
    /// Set exactly when `suggestions` is empty.
    public var reason: NoSuggestionReason?
    /// What the decision memory holds for the name, when its first suggestions come from there.
    public var memory: Recall?
    public init(name: String, tokens: [String]? = nil, suggestions: [Suggestion], autoAccept: Bool = false,
                firstIsHead: Bool = true, reason: NoSuggestionReason? = nil, memory: Recall? = nil) {
        self.name = name
        self.tokens = tokens
        self.suggestions = suggestions
        self.autoAccept = autoAccept
        self.firstIsHead = firstIsHead
        self.reason = reason
        self.memory = memory
    }
}

/// The current keyword list and a version string that changes whenever the list changes.
public struct KeywordListSnapshot: Sendable, Equatable {
    public var keywords: KeywordList
    public var version: String
    public init(keywords: KeywordList, version: String) {
        self.keywords = keywords
        self.version = version
    }
    public init(keywords: [String], version: String) {
        self.init(keywords: KeywordList(keywords), version: version)
    }
}

/// A keyword list, read-only: an array, or the keywords of an index in list order (shared with the index, so
/// serving a changed list copies nothing).
public struct KeywordList: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
        case array([String])
        case index(KeywordEntries)
    }
    private let storage: Storage

    public init(_ keywords: [String]) { storage = .array(keywords) }
    public init(arrayLiteral keywords: String...) { storage = .array(keywords) }
    /// The keywords of `entries`, in their order.
    public init(_ entries: KeywordEntries) { storage = .index(entries) }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch storage {
        case .array(let keywords): return keywords.count
        case .index(let entries): return entries.count
        }
    }

    public subscript(k: Int) -> String {
        switch storage {
        case .array(let keywords): return keywords[k]
        case .index(let entries): return entries[k].keyword
        }
    }

    public static func == (a: KeywordList, b: KeywordList) -> Bool { a.elementsEqual(b) }
}

/// What the HTTP server and the CLI need from a loaded model.
///
/// Implementations must be safe to call from many threads at once.
public protocol SuggestionEngine: Sendable {
    /// The model's version string, as reported by the API.
    var modelVersion: String { get }
    /// Ranks the current keywords for `name` and returns the best `k`.
    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult
    /// The current keyword list.
    func keywordList() -> KeywordListSnapshot
    /// Applies a keyword change through the store, durably, and serves the new list before returning.
    /// Throws `KeywordStoreError.versionMismatch` when `change.expectedVersion` is not the current version.
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot
    /// Re-reads the keyword changes from the store (made by another process or replica).
    func reloadKeywords() throws -> KeywordListSnapshot
    /// Which of `keywords` are in the current list.
    func listed(_ keywords: [String]) -> Set<String>
    /// The name key of `name` under the model's name normalisation (`TextAnalyzer.nameKey`): two listings of one
    /// product share it.
    func nameKey(_ name: String) -> String
    /// The model's own answers, without anything in front of them (the decision memory): what a shadow candidate
    /// is compared with.
    var modelOnly: any SuggestionEngine { get }
}

extension SuggestionEngine {
    /// Which of `keywords` are in the current list, by scanning it.
    /// - Complexity: O(list).
    public func listed(_ keywords: [String]) -> Set<String> {
        Set(keywordList().keywords).intersection(keywords)
    }

    /// The name itself, for an engine without a name normalisation of its own.
    public func nameKey(_ name: String) -> String { name }

    /// The engine itself, for an engine that is the model alone.
    public var modelOnly: any SuggestionEngine { self }

    /// Adds and removes keywords with no version check.
    public func updateKeywords(add: [String], remove: [String]) throws -> KeywordListSnapshot {
        try updateKeywords(KeywordChange(add: add, remove: remove))
    }
}
