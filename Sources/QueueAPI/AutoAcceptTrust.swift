// The auto-accept rule as the running queue follows it: rebuilt from the store's evidence for the serving model
// (off the event loop, every few seconds), read by every enqueue, and summarised for /metrics.
import Locking
import StoreInterface
import TeamQueue

/// Which rule decides whether the model labels an arriving item.
public enum AutoAcceptMode: String, Sendable, Equatable, CaseIterable {
    /// Above the calibration threshold, the team's evidence at the item's confidence (`AutoAcceptRule`).
    case evidence
    /// The calibration curve's threshold alone, whatever the team's decisions show.
    case calibration
}

/// How a queue auto-accepts: the rule, its settings, and the keywords' categories.
public struct AutoAcceptConfiguration: Sendable {
    public var mode: AutoAcceptMode
    public var settings: AutoAcceptSettings
    /// Keyword → category (the model directory's `keyword-categories.tsv`); a keyword without one falls back from
    /// its own evidence to all keywords'.
    public var categories: [String: String]
    /// How often the rule is rebuilt from the store's evidence, in seconds.
    public var refreshSeconds: Double

    public init(mode: AutoAcceptMode = .evidence, settings: AutoAcceptSettings = AutoAcceptSettings(),
                categories: [String: String] = [:], refreshSeconds: Double = 2) {
        self.mode = mode
        self.settings = settings
        self.categories = categories
        self.refreshSeconds = refreshSeconds
    }
}

/// The rule the queue follows now, rebuilt by `refresh`.
public final class AutoAcceptTrust: Sendable {
    public let configuration: AutoAcceptConfiguration
    private let current = Locked<AutoAcceptRule?>(nil)
    /// Keywords per state, as /metrics shows them (counted at the last refresh).
    private let states = Locked<[AutoAcceptState: Int]>([:])
    /// Rules built by `refresh` (a refresh with unchanged evidence builds none).
    private let builds = Locked(0)
    var rulesBuilt: Int { builds.withLock { $0 } }

    public init(configuration: AutoAcceptConfiguration) {
        self.configuration = configuration
    }

    public func category(of keyword: String) -> String? { configuration.categories[keyword] }

    /// The rule for `model`: the one built at the last refresh when it was for this version, else one with no
    /// evidence (a version's evidence is its own).
    public func rule(for model: String) -> AutoAcceptRule {
        if let rule = current.withLock({ $0 }), rule.model == model { return rule }
        return AutoAcceptRule(model: model, evidence: [], settings: configuration.settings)
    }

    /// Whether the model labels an item whose suggestions are `suggestions`, by this queue's mode.
    /// `calibrationSaysAccept` is the calibration threshold's answer: the most either mode lets through.
    public func accepts(model: String, suggestions: [QueueSuggestion], calibrationSaysAccept: Bool) -> Bool {
        switch configuration.mode {
        case .calibration:
            return calibrationSaysAccept
        case .evidence:
            guard calibrationSaysAccept, let top = suggestions.first, let confidence = top.confidence else { return false }
            return rule(for: model).verdict(keyword: top.keyword, category: category(of: top.keyword),
                                            confidence: confidence).accept
        }
    }

    /// Rebuilds the rule from the store's evidence for `model` and `extra` (the feedback route's), and the keyword
    /// states for /metrics. The rule is rebuilt only when the evidence changed (each pool's threshold search is the
    /// costly part); the states are counted every time, as the queue's keywords change without new evidence.
    public func refresh(store: any QueueStore, model: String, extra: [QueueEvidence] = []) throws(QueueError) {
        let evidence = try store.evidence(model: model) + extra
        // Compared and built outside the lock: arrivals read the current rule while a new one is built.
        let previous = current.withLock { $0 }
        let rule: AutoAcceptRule
        if let previous, previous.model == model, previous.evidence == evidence {
            rule = previous
        } else {
            rule = AutoAcceptRule(model: model, evidence: evidence, settings: configuration.settings)
            builds.withLock { $0 += 1 }
        }
        let keywords = try store.keywordCounts().keys
        var counts: [AutoAcceptState: Int] = [:]
        for keyword in keywords { counts[state(of: keyword, rule: rule), default: 0] += 1 }
        current.withLock { $0 = rule }
        states.withLock { $0 = counts }
    }

    /// A keyword's state under `rule`, whatever the mode: what the team's evidence says of it. The queue also
    /// needs the calibration threshold's accept, so a keyword `on` here may still have its low-confidence items
    /// queued.
    public func state(of keyword: String, rule: AutoAcceptRule) -> AutoAcceptState {
        rule.state(keyword: keyword, category: category(of: keyword))
    }

    /// Keywords with items in the queue, per state, at the last refresh.
    public var keywordStates: [AutoAcceptState: Int] { states.withLock { $0 } }
}
