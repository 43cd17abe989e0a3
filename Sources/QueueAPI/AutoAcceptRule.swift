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
    /// Decisions at or above a confidence a pool needs before it decides for that confidence.
    public var minimumEvidence: Int
    /// The one-sided level of the lower bound a pool's posterior must keep above the target.
    public var risk: Double
    /// The level of the tests that stop a keyword, a category or the model (too many wrong for the target, or
    /// for the confidences).
    public var stopLevel: Double

    public static let defaultPriorWeight = 50.0
    public static let defaultMinimumEvidence = 20
    public static let defaultRisk = 0.1
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
    /// The evidence shows the keyword or its category below the target: its items are queued until it recovers.
    case off
    /// Not enough evidence yet: its items are queued.
    case learning
}

/// The rule's answer for one item.
public struct AutoAcceptVerdict: Sendable, Equatable {
    public var accept: Bool
    /// The pool that decided; nil when no pool had enough evidence (the item is queued).
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

    /// Over every decision of the pool, at any confidence: how many, how many wrong, and how many the model's
    /// confidences expected wrong (Σ 1 − confidence).
    private(set) var total = 0, wrong = 0
    private(set) var expectedWrong = 0.0

    init(_ evidence: [QueueEvidence]) {
        for item in evidence {
            total += 1
            if !item.correct { wrong += 1 }
            expectedWrong += 1 - item.confidence
        }
        for item in evidence.sorted(by: { $0.confidence > $1.confidence }) {
            confidences.append(item.confidence)
            correct.append(correct[correct.count - 1] + (item.correct ? 1 : 0))
            claimed.append(claimed[claimed.count - 1] + item.confidence)
        }
    }

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

/// The rule for one model version, built from that version's evidence.
///
/// For an item whose first suggestion is keyword k (category c) at confidence p, each pool (k's decisions, c's,
/// all of them) is read at or above p: n decisions, w of them wrong. A keyword with fewer than `minimumEvidence`
/// decisions of its own falls back to its category's, then to all of them; a keyword with none is decided by the
/// first decision of every keyword (how the model fares on keywords no one had labelled), after the stop tests of
/// its category and of all decisions. From the most specific pool to the least:
/// - a keyword or category pool **fails** when w wrong of n would happen with probability below `risk` if its
///   precision were the target (the exact binomial test): the item is queued;
/// - the first pool with at least `minimumEvidence` decisions decides: it **supports** the item when μ, the mean
///   confidence the model gave those decisions (its calibration's claim), reaches the target and the `risk`
///   quantile of the posterior Beta(m·μ + n − w, m·(1 − μ) + w) does too (m is `priorWeight`);
/// - no pool with enough decisions: the item is queued (learning).
public struct AutoAcceptRule: Sendable {
    public let model: String
    public let settings: AutoAcceptSettings
    /// The number of decisions the rule learned from.
    public let evidenceCount: Int
    private let keywords: [String: EvidenceCurve]
    private let categories: [String: EvidenceCurve]
    private let all: EvidenceCurve
    private let firstOfKeyword: EvidenceCurve

    /// The rule for `model` from its evidence (evidence of other versions is ignored).
    public init(model: String, evidence: [QueueEvidence], settings: AutoAcceptSettings) {
        let own = evidence.filter { $0.model == model }
        self.model = model
        self.settings = settings
        evidenceCount = own.count
        keywords = Dictionary(grouping: own, by: \.keyword).mapValues(EvidenceCurve.init)
        categories = Dictionary(grouping: own.filter { $0.category != nil }, by: { $0.category ?? "" })
            .mapValues(EvidenceCurve.init)
        all = EvidenceCurve(own)
        var seen = Set<String>()
        firstOfKeyword = EvidenceCurve(own.filter { seen.insert($0.keyword).inserted })
    }

    /// The verdict for an item whose first suggestion is `keyword` (in `category`) at `confidence`.
    /// - Complexity: O(log n) for n decisions.
    public func verdict(keyword: String, category: String?, confidence: Double) -> AutoAcceptVerdict {
        let own = keywords[keyword]
        let group = category.flatMap { categories[$0] }
        // A keyword no one has labelled yet is judged by how the model fared on other keywords at their first
        // label (errors cluster by keyword, so the pool of every decision would flatter it), after its
        // category's and the model's stop tests.
        let pools: [(pool: EvidencePool, curve: EvidenceCurve?, decides: Bool)] = own == nil
            ? [(.category, group, false), (.all, all, false), (.firstOfKeyword, firstOfKeyword, true)]
            : [(.keyword, own, true), (.category, group, true), (.all, all, true)]
        // A keyword whose decisions, at any confidence, hold more errors than the model's confidences allow beyond
        // chance is miscalibrated: its confidence does not mean what it says. So is a category or the whole model,
        // for the keywords that fall back to them.
        if let own, miscalibrated(own) { return AutoAcceptVerdict(accept: false, pool: .keyword, state: .off) }
        for (pool, curve, decides) in pools {
            guard let curve else { continue }
            let counts = curve.counts(atOrAbove: confidence)
            if fails(counts) || miscalibrated(curve) {
                return AutoAcceptVerdict(accept: false, pool: pool, state: .off)
            }
            guard decides, counts.n >= settings.minimumEvidence else { continue }
            let accept = supports(counts)
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

    /// More wrong than the confidences expected, beyond chance: the chance of at least that many wrong in the
    /// pool's decisions, each wrong with the pool's mean claimed error, is below `risk`.
    func miscalibrated(_ curve: EvidenceCurve) -> Bool {
        guard curve.total > 0, curve.wrong > 0 else { return false }
        let claimedError = min(max(curve.expectedWrong / Double(curve.total), 1e-6), 1)
        return EvidenceBounds.binomialUpperTail(curve.wrong, curve.total, claimedError) < settings.stopLevel
    }

    /// The exact test: w wrong of n is less likely than `risk` at the target precision.
    func fails(_ counts: (n: Int, correct: Int, claimed: Double)) -> Bool {
        Self.fails(n: counts.n, correct: counts.correct, settings: settings)
    }

    static func fails(n: Int, correct: Int, settings: AutoAcceptSettings) -> Bool {
        let wrong = n - correct
        guard n > 0, wrong > 0 else { return false }
        return EvidenceBounds.binomialUpperTail(wrong, n, 1 - settings.target) < settings.stopLevel
    }

    /// The model's own claim for the decisions (their mean confidence) reaches the target, and the posterior's
    /// `risk` quantile does too.
    func supports(_ counts: (n: Int, correct: Int, claimed: Double)) -> Bool {
        guard counts.n > 0 else { return false }
        let claim = counts.claimed / Double(counts.n)
        guard claim >= settings.target else { return false }
        let prior = min(max(claim, 0), Self.maximumPrior)
        let a = settings.priorWeight * prior + Double(counts.correct)
        let b = settings.priorWeight * (1 - prior) + Double(counts.n - counts.correct)
        return EvidenceBounds.betaQuantile(settings.risk, a, b) >= settings.target
    }
}
