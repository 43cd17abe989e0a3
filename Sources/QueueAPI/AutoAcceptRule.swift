// When the model may label a queued item itself: only when the team's own decisions on this model's
// suggestions support the target precision at the item's confidence. See docs/queue.md, "Auto-accept".
import StoreInterface
import TeamQueue

/// The settings of the auto-accept rule.
public struct AutoAcceptSettings: Sendable, Equatable {
    /// The precision auto-accepted labels must reach (`serve --auto-accept-precision`).
    public var target: Double
    /// How many decisions the model's own confidence counts as, in the prior the evidence corrects.
    public var priorWeight: Double
    /// Decisions a pool needs before it decides (it needs as many as `priorWeight` too).
    public var minimumEvidence: Int
    /// The one-sided level of the lower bound a pool's posterior must keep above the target.
    public var risk: Double
    /// The level of the test that stops a keyword, a category or the model: too many wrong for the target.
    public var stopLevel: Double

    /// The decisions a pool needs before it decides: `minimumEvidence`, and at least as many as the prior weighs,
    /// so that the evidence is never outweighed by the model's own claim.
    public var evidenceWeight: Int { max(minimumEvidence, Int(priorWeight.rounded(.up))) }

    public static let defaultPriorWeight = 25.0
    public static let defaultMinimumEvidence = 50
    public static let defaultRisk = 0.25
    public static let defaultStopLevel = 0.05

    public init(target: Double = 0.98, priorWeight: Double = AutoAcceptSettings.defaultPriorWeight,
                minimumEvidence: Int = AutoAcceptSettings.defaultMinimumEvidence, risk: Double = AutoAcceptSettings.defaultRisk,
                stopLevel: Double = AutoAcceptSettings.defaultStopLevel) {
        self.target = target
        self.priorWeight = priorWeight
        self.minimumEvidence = minimumEvidence
        self.risk = risk
        self.stopLevel = stopLevel
    }
}

/// Which decisions a verdict rests on.
public enum EvidencePool: String, Sendable, Equatable, CaseIterable {
    case keyword
    case category
    case all
    /// Each keyword's first decision: how the model fares on keywords no one had labelled yet.
    case firstOfKeyword = "first_of_keyword"
}

/// What the rule says of a keyword, as `GET /v1/queue/keywords` and /metrics show it.
public enum AutoAcceptState: String, Sendable, Equatable, CaseIterable {
    /// Items of this keyword are auto-accepted at some confidence.
    case on
    /// The evidence of the keyword, its category, the model or (for a keyword no one has labelled) the keywords'
    /// first decisions shows it below the target: its items are queued until it recovers.
    case off
    /// Not enough evidence yet: its items are queued.
    case learning
}

/// The rule's answer for one item.
public struct AutoAcceptVerdict: Sendable, Equatable {
    public var accept: Bool
    /// The pool that decided, or whose stop test failed; nil when no pool had enough evidence (the item is queued).
    public var pool: EvidencePool?
    public var state: AutoAcceptState

    public init(accept: Bool, pool: EvidencePool?, state: AutoAcceptState) {
        self.accept = accept
        self.pool = pool
        self.state = state
    }
}

/// A pool's decisions sorted by confidence, highest first, with running sums: the counts at or above any
/// confidence in O(log n).
struct EvidenceCurve: Sendable {
    private(set) var confidences: [Double] = []
    private var correct: [Int] = [0]
    private var claimed: [Double] = [0]

    init(_ evidence: [QueueEvidence]) {
        for item in evidence.sorted(by: { $0.confidence > $1.confidence }) {
            confidences.append(item.confidence)
            correct.append(correct[correct.count - 1] + (item.correct ? 1 : 0))
            claimed.append(claimed[claimed.count - 1] + item.confidence)
        }
    }

    /// How far apart, in decisions, the thresholds `lowestThreshold` tries are, at least.
    static let thresholdStep = 50
    /// The most thresholds `lowestThreshold` tries: a pool of more than about 12,800 decisions is tried at wider
    /// steps, so that a refresh stays cheap however much evidence there is.
    static let maximumThresholds = 256

    /// The lowest confidence t whose decisions at or above it (at least `minimum` of them) satisfy `holds`; nil
    /// when none does. Tried at the confidences of the `minimum`-th surest decision, every `thresholdStep`-th
    /// after it (the 50th, 100th, 150th, …) and the least sure one: a few nested sets. Finer steps let the search
    /// pick a lucky run of right answers out of many overlapping ones, which a rule that then stops asking people
    /// keeps (`AutoAcceptRuleTests`: a stream right 90 % of the time whatever it claims).
    /// - Complexity: O(min(n / `thresholdStep`, `maximumThresholds`)) calls of `holds`.
    func lowestThreshold(minimum: Int, holds: ((n: Int, correct: Int, claimed: Double)) -> Bool) -> Double? {
        guard minimum > 0, confidences.count >= minimum else { return nil }
        let step = max(Self.thresholdStep, (confidences.count - minimum) / Self.maximumThresholds + 1)
        var lowest: Double?
        var index = minimum - 1
        while index < confidences.count {
            let threshold = confidences[index]
            if holds(counts(atOrAbove: threshold)) { lowest = threshold }
            index += index == confidences.count - 1 ? 1 : min(step, confidences.count - 1 - index)
        }
        return lowest
    }

    var count: Int { confidences.count }

    /// Decisions at or above `confidence`: how many, how many right, and the sum of the model's confidences.
    func counts(atOrAbove confidence: Double) -> (n: Int, correct: Int, claimed: Double) {
        var low = 0, high = confidences.count
        while low < high {
            let middle = (low + high) / 2
            if confidences[middle] >= confidence { low = middle + 1 } else { high = middle }
        }
        return (low, correct[low], claimed[low])
    }
}

/// The rule for one model version, built from that version's evidence (docs/queue.md, "The rule").
///
/// For an item whose first suggestion is keyword k (category c) at confidence p, the pools are k's decisions,
/// c's, all of them, and the first decision of every keyword (how the model fares on keywords no one had
/// labelled). From the most specific pool to the least:
/// - a pool **fails** when w wrong of its n decisions at or above p would happen with probability below
///   `stopLevel` if its precision were the target (the exact binomial test): the item is queued (off);
/// - the first pool with at least `AutoAcceptSettings.evidenceWeight` decisions decides (k's, else c's, else
///   all; a keyword with no decision of its own: the first decisions, after c's and all decisions' stop tests).
///   It accepts p at or above its **threshold**: the lowest confidence t whose decisions at or above t, at least
///   `evidenceWeight` of them, do not fail and **support** the target: the `risk` quantile of the posterior
///   Beta(m·μ + n − w, m·(1 − μ) + w) reaches it, μ being the mean confidence the model gave them (its
///   calibration's claim) and m `priorWeight`;
/// - no pool with enough decisions: the item is queued (learning).
///
/// The queue applies the rule above the calibration threshold only (`AutoAcceptTrust`).
public struct AutoAcceptRule: Sendable {
    public let model: String
    public let settings: AutoAcceptSettings
    /// The number of decisions the rule learned from.
    public let evidenceCount: Int
    private let keywords: [String: EvidenceCurve]
    private let categories: [String: EvidenceCurve]
    /// The evidence the rule was built from, as given: a refresh with the same evidence keeps the rule.
    let evidence: [QueueEvidence]
    private let all: EvidenceCurve
    private let firstOfKeyword: EvidenceCurve
    /// Each deciding pool's threshold: the lowest confidence whose decisions at or above it support the target.
    private let keywordThresholds: [String: Double]
    private let categoryThresholds: [String: Double]
    private let allThreshold: Double?
    private let firstOfKeywordThreshold: Double?

    /// The rule for `model` from its evidence. Evidence of other versions is ignored, and so is evidence on items
    /// whose first suggestion was not the head of the name (`QueueEvidence.firstIsHead`): the rule never accepts
    /// such an item, and how the model fares on them says nothing of the items it may accept.
    public init(model: String, evidence: [QueueEvidence], settings: AutoAcceptSettings) {
        let own = evidence.filter { $0.model == model && $0.firstIsHead }
        self.evidence = evidence
        self.model = model
        self.settings = settings
        evidenceCount = own.count
        keywords = Dictionary(grouping: own, by: \.keyword).mapValues(EvidenceCurve.init)
        categories = Dictionary(grouping: own.filter { $0.category != nil }, by: { $0.category ?? "" })
            .mapValues(EvidenceCurve.init)
        all = EvidenceCurve(own)
        var seen = Set<String>()
        firstOfKeyword = EvidenceCurve(own.filter { seen.insert($0.keyword).inserted })
        func threshold(_ curve: EvidenceCurve) -> Double? {
            curve.lowestThreshold(minimum: settings.evidenceWeight) { counts in
                Self.supports(counts, settings: settings) && !Self.fails(n: counts.n, correct: counts.correct, settings: settings)
            }
        }
        keywordThresholds = keywords.compactMapValues(threshold)
        categoryThresholds = categories.compactMapValues(threshold)
        allThreshold = threshold(all)
        firstOfKeywordThreshold = threshold(firstOfKeyword)
    }

    /// The verdict for an item whose first suggestion is `keyword` (in `category`) at `confidence`.
    /// - Complexity: O(log n) for n decisions.
    public func verdict(keyword: String, category: String?, confidence: Double) -> AutoAcceptVerdict {
        let own = keywords[keyword]
        let group = category.flatMap { categories[$0] }
        // A keyword no one has labelled yet is judged by how the model fared on other keywords at their first
        // label (errors cluster by keyword, so the pool of every decision would flatter it), after its
        // category's and the model's stop tests.
        let pools: [(pool: EvidencePool, curve: EvidenceCurve?, threshold: Double?, decides: Bool)] = own == nil
            ? [(.category, group, nil, false), (.all, all, nil, false),
               (.firstOfKeyword, firstOfKeyword, firstOfKeywordThreshold, true)]
            : [(.keyword, own, keywordThresholds[keyword], true),
               (.category, group, category.flatMap { categoryThresholds[$0] }, true), (.all, all, allThreshold, true)]
        // From the most specific pool down to the one that decides, each pool's stop test: a keyword with evidence
        // enough of its own is judged on it, and one bad keyword that fails its category or the model does not
        // stop the keywords whose own decisions hold.
        for (pool, curve, threshold, decides) in pools {
            guard let curve else { continue }
            if fails(curve.counts(atOrAbove: confidence)) {
                return AutoAcceptVerdict(accept: false, pool: pool, state: .off)
            }
            // The first pool with decisions enough decides: p is accepted at or above the pool's threshold, the
            // lowest confidence whose decisions at or above it support the target.
            guard decides, curve.count >= settings.evidenceWeight else { continue }
            let accept = threshold.map { confidence >= $0 } ?? false
            return AutoAcceptVerdict(accept: accept, pool: pool, state: accept ? .on : .learning)
        }
        return AutoAcceptVerdict(accept: false, pool: nil, state: .learning)
    }

    /// The confidences `state` tries: on when any of them is accepted, off when none is and a pool fails at one.
    static let stateConfidences = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999]

    /// Whether the keyword's items are auto-accepted at some confidence (on), stopped by failing evidence (off),
    /// or neither yet (learning), read at the confidences `stateConfidences`.
    public func state(keyword: String, category: String?) -> AutoAcceptState {
        let verdicts = Self.stateConfidences.map { verdict(keyword: keyword, category: category, confidence: $0) }
        if verdicts.contains(where: \.accept) { return .on }
        return verdicts.contains { $0.state == .off } ? .off : .learning
    }

    /// The most the prior believes of the model's confidence: a calibration that claims certainty (a broken one
    /// does) still leaves the evidence room to speak.
    static let maximumPrior = 0.995

    /// The exact test: w or more wrong of n is less likely than `stopLevel` at the target precision.
    func fails(_ counts: (n: Int, correct: Int, claimed: Double)) -> Bool {
        Self.fails(n: counts.n, correct: counts.correct, settings: settings)
    }

    static func fails(n: Int, correct: Int, settings: AutoAcceptSettings) -> Bool {
        let wrong = n - correct
        guard n > 0, wrong > 0 else { return false }
        return EvidenceBounds.binomialUpperTail(wrong, n, 1 - settings.target) < settings.stopLevel
    }

    /// The `risk` quantile of the posterior, with the decisions' mean confidence as the prior worth
    /// `priorWeight` decisions, reaches the target.
    static func supports(_ counts: (n: Int, correct: Int, claimed: Double), settings: AutoAcceptSettings) -> Bool {
        guard counts.n > 0 else { return false }
        let claim = counts.claimed / Double(counts.n)
        let prior = min(max(claim, 0), Self.maximumPrior)
        let a = settings.priorWeight * prior + Double(counts.correct)
        let b = settings.priorWeight * (1 - prior) + Double(counts.n - counts.correct)
        // With `risk` ≤ ¼ and b ≥ ¼ (one wrong decision is enough) the `risk` quantile of Beta(a, b) lies below its
        // mean, so a mean below the target settles it without the quantile, which the threshold search would
        // otherwise compute at every step.
        let meanBoundsQuantile = settings.risk <= 0.25 && b >= 0.25
        guard !meanBoundsQuantile || a / (a + b) >= settings.target else { return false }
        return EvidenceBounds.betaQuantile(settings.risk, a, b) >= settings.target
    }
}
