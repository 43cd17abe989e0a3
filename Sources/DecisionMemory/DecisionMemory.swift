// The memory of decided names: every accepted or corrected decision in the store, by name key, so that a product
// an annotator decided is answered from that decision at once, on every replica, without a retrain.
import Locking
import StoreInterface

/// Decided names by name key, resolved with `VoteTally`'s rule (each annotator's latest decision, then the
/// majority). Records arrive from the store in any order and more than once (a local write, then the follower's
/// read of the same record); each is kept once by id. Withdrawn records (queue decisions that were undone) leave.
///
/// Thread-safe: lookups and updates take one lock for O(1) work plus the changed names' resolutions.
public final class DecisionMemory: Sendable {
    /// Turns a product name into its name key; "" means the name has no content and is not remembered.
    public typealias Keyer = @Sendable (String) -> String

    /// How sure a remembered keyword is: each annotator's decision is taken as right with this probability,
    /// independently of the others, so the posterior odds are (p / (1 − p))^(supporters − dissenters).
    public static let annotatorAccuracy = 0.95

    struct Decision: Sendable {
        var id: Int64
        var name: String
        var annotator: String?
        var keyword: String
        var action: FeedbackAction
    }

    struct Entry: Sendable {
        var decisions: [Decision] = []
        var recall: Recall?
    }

    struct State: Sendable {
        var keyer: Keyer
        /// Names the keyer, so a model whose normalisation is the same keeps the memory as it is.
        var keyerIdentity: String
        var entries: [String: Entry] = [:]
        var keyOfRecord: [Int64: String] = [:]
        var withdrawn: Set<Int64> = []
        var lastID: Int64 = 0
    }
    private let state: Locked<State>

    /// - Parameters:
    ///   - keyer: the name key of the model being served (`TextAnalyzer.nameKey`).
    ///   - identity: what makes two keyers equal (the model's normalisation files), for `adopt`.
    public init(keyer: @escaping Keyer, identity: String) {
        state = Locked(State(keyer: keyer, keyerIdentity: identity))
    }

    /// A memory keyed by the name with its white space removed, until an engine adopts it with its model's key.
    public convenience init() {
        self.init(keyer: { name in String(name.unicodeScalars.filter { !$0.properties.isWhitespace }) }, identity: "")
    }

    /// Names remembered (keys with at least one decision).
    public var count: Int { state.withLock { $0.entries.count } }

    /// The largest record id seen: the follower reads the store after it.
    public var lastRecordID: Int64 { state.withLock { $0.lastID } }

    /// What the memory holds for `name`: nil when no decision on its key resolves to a keyword.
    /// - Complexity: O(name length) for the key, O(1) for the lookup.
    public func recall(_ name: String) -> Recall? {
        let keyer = state.withLock { $0.keyer }
        let key = keyer(name)
        guard !key.isEmpty else { return nil }
        return state.withLock { $0.entries[key]?.recall }
    }

    /// `recall` for an engine whose name key is `keyer`: the memory adopts it first when its identity differs
    /// (once, after a model with another normalisation went live).
    /// - Complexity: as `recall`, plus `adopt` when the identity changes.
    public func recall(_ name: String, keyer: @escaping Keyer, identity: String) -> Recall? {
        if state.withLock({ $0.keyerIdentity != identity }) { adopt(keyer: keyer, identity: identity) }
        return recall(name)
    }

    /// Adds decisions; records already held, withdrawn ones, and those whose name has no key are skipped.
    /// - Complexity: O(records) plus one resolution per changed name.
    public func ingest(_ records: [FeedbackRecord]) {
        guard !records.isEmpty else { return }
        let keyer = state.withLock { $0.keyer }
        let keyed = records.map { (keyer($0.item.name), $0) }
        state.withLock { state in
            var changed: Set<String> = []
            for (key, record) in keyed {
                state.lastID = max(state.lastID, record.id)
                guard !key.isEmpty, state.keyOfRecord[record.id] == nil, !state.withdrawn.contains(record.id) else { continue }
                state.keyOfRecord[record.id] = key
                let item = record.item
                state.entries[key, default: Entry()].decisions.append(
                    Decision(id: record.id, name: item.name, annotator: item.annotator, keyword: item.keyword, action: item.action))
                changed.insert(key)
            }
            for key in changed { Self.resolve(key, in: &state) }
        }
    }

    /// Makes `ids` the withdrawn records: those newly withdrawn leave the memory. Withdrawal is final (an undone
    /// queue decision is never redone; a new decision writes new records).
    /// - Complexity: O(ids) plus one resolution per changed name.
    public func withdraw(_ ids: Set<Int64>) {
        state.withLock { state in
            let fresh = ids.subtracting(state.withdrawn)
            guard !fresh.isEmpty else { return }
            state.withdrawn.formUnion(fresh)
            var changed: Set<String> = []
            for id in fresh {
                guard let key = state.keyOfRecord.removeValue(forKey: id) else { continue }
                state.entries[key]?.decisions.removeAll { $0.id == id }
                changed.insert(key)
            }
            for key in changed { Self.resolve(key, in: &state) }
        }
    }

    /// Serves another model's name key: when its identity differs, every decision is keyed again.
    /// - Complexity: O(1) when the identity is the same, else O(decisions).
    public func adopt(keyer: @escaping Keyer, identity: String) {
        let decisions: [Decision]? = state.withLock { state in
            guard state.keyerIdentity != identity else { return nil }
            return state.entries.values.flatMap(\.decisions)
        }
        guard let decisions else { return }
        let keyed = decisions.map { (keyer($0.name), $0) }
        state.withLock { state in
            state.keyer = keyer
            state.keyerIdentity = identity
            state.entries = [:]
            state.keyOfRecord = [:]
            for (key, decision) in keyed where !key.isEmpty {
                state.keyOfRecord[decision.id] = key
                state.entries[key, default: Entry()].decisions.append(decision)
            }
            for key in state.entries.keys { Self.resolve(key, in: &state) }
        }
    }

    private static func resolve(_ key: String, in state: inout State) {
        guard var entry = state.entries[key] else { return }
        guard !entry.decisions.isEmpty else {
            state.entries[key] = nil
            return
        }
        entry.decisions.sort { $0.id < $1.id }
        var tally = VoteTally()
        for decision in entry.decisions {
            tally.add(id: decision.id, annotator: decision.annotator, keyword: decision.keyword, action: decision.action)
        }
        let resolution = tally.resolved()
        let latestVote = entry.decisions.last { $0.action != .reject } ?? entry.decisions[entry.decisions.count - 1]
        entry.recall = resolution.keywords.isEmpty ? nil : Recall(name: latestVote.name, resolution: resolution)
        state.entries[key] = entry
    }
}

/// What the memory holds for a name.
public struct Recall: Sendable, Equatable {
    /// The decided name the answer comes from (the latest one decided with this key).
    public var name: String
    /// Best first.
    public var keywords: [RememberedKeyword]
    /// Whether annotators voted for more than one keyword.
    public var disagreement: Bool

    init(name: String, resolution: VoteTally.Resolution) {
        self.name = name
        keywords = resolution.keywords.map(RememberedKeyword.init)
        disagreement = resolution.disagreement
    }
}

/// A keyword the memory holds for a name, and how well the decisions support it.
public struct RememberedKeyword: Sendable, Equatable {
    public var keyword: String
    /// The annotators who decided for it ("" is the anonymous one).
    public var annotators: [String]
    /// Annotators for it, less those rejecting it.
    public var score: Int
    /// The probability that it is right, from `DecisionMemory.annotatorAccuracy`: one annotator 0.95, two who
    /// agree 0.9972, one for and one against 0.5.
    public var confidence: Double

    init(_ keyword: VoteTally.Keyword) {
        self.keyword = keyword.keyword
        annotators = keyword.supporters
        score = keyword.score
        let odds = DecisionMemory.annotatorAccuracy / (1 - DecisionMemory.annotatorAccuracy)
        let weight = keyword.supporters.count - keyword.dissenters
        var ratio = 1.0
        for _ in 0 ..< abs(weight) { ratio *= odds }
        if weight < 0 { ratio = 1 / ratio }
        confidence = ratio / (1 + ratio)
    }
}
