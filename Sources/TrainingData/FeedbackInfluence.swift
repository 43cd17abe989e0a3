// How far one annotator's decisions reach into a retrain: a bound on the training copies one annotator's own
// labels add for a keyword, and the rule by which a keyword the model's list lacks joins it.

/// The labelled names a retrain learns from the feedback, and how many times each, under two rules.
///
/// - **Copies.** A name is trained on `weight` times. When its label (its first keyword) has one supporter only,
///   the name counts against that annotator's budget for that keyword: the names one annotator alone labels with
///   one keyword are trained on `cap` times at most, together. Past the cap each of those `n` names is trained on
///   `cap / n` times, and when there are more names than `cap`, only the newest `cap` are, once each. Names that
///   two or more annotators agree on are not bounded: the bound is on one annotator.
/// - **New keywords.** A keyword the model's list lacks joins the new list when at least two named annotators
///   vote for it (on any names), or when the store's keyword changes add it (an admin's decision). Otherwise it is
///   held back: dropped from the labels, and a name left with no keyword is not trained on. The anonymous
///   annotator is one annotator, never two.
public struct FeedbackInfluence: Sendable, Equatable {
    /// One annotator's copies per keyword by default: five names at the default weight of 4.
    public static let defaultCap = 20

    /// A keyword the feedback names that does not join the list, and who voted for it.
    public struct Held: Sendable, Equatable {
        public var keyword: String
        public var supporters: [String]

        public init(keyword: String, supporters: [String]) {
            self.keyword = keyword
            self.supporters = supporters
        }
    }

    /// One annotator's names for one keyword that the cap trained on fewer times than `weight` each.
    public struct Capped: Sendable, Equatable {
        public var annotator: String
        public var keyword: String
        public var names: Int
        /// Training copies of those names together (at most the cap).
        public var copies: Int

        public init(annotator: String, keyword: String, names: Int, copies: Int) {
            self.annotator = annotator
            self.keyword = keyword
            self.names = names
            self.copies = copies
        }
    }

    /// The names trained on, oldest decision first, with only their admitted keywords.
    public var names: [LabelledName]
    /// How many times each of `names` is trained on (at least 1).
    public var copies: [Int]
    /// Keywords of `names` that `list` lacks, first seen first: they join the new list.
    public var newKeywords: [String]
    public var held: [Held]
    public var capped: [Capped]

    /// Applies the rules to `labels`. `list` is the parent model's keyword list, `admitted` the keywords the
    /// store's keyword changes add, `weight` the copies of an unbounded name and `cap` one annotator's copies per
    /// keyword.
    public init(_ labels: FeedbackLabels, list: [String], admitted: Set<String>, weight: Int, cap: Int) {
        let weight = max(1, weight), cap = max(1, cap)
        let known = Set(list)
        var voters: [String: Set<String>] = [:]
        for (name, supporters) in zip(labels.names, labels.supporters) {
            for (keyword, names) in zip(name.keywords, supporters) {
                voters[keyword, default: []].formUnion(names.filter { !$0.isEmpty })
            }
        }
        func joins(_ keyword: String) -> Bool {
            known.contains(keyword) || admitted.contains(keyword) || (voters[keyword]?.count ?? 0) >= 2
        }

        var kept: [(name: LabelledName, first: [String])] = []
        var held: [Held] = [], heldSeen = Set<String>()
        var newKeywords: [String] = [], newSeen = Set<String>()
        for (name, supporters) in zip(labels.names, labels.supporters) {
            var label = name
            label.keywords = []
            var first: [String]?
            for (keyword, names) in zip(name.keywords, supporters) {
                if joins(keyword) {
                    label.keywords.append(keyword)
                    if first == nil { first = names }
                    if !known.contains(keyword), newSeen.insert(keyword).inserted { newKeywords.append(keyword) }
                } else if heldSeen.insert(keyword).inserted {
                    held.append(Held(keyword: keyword, supporters: (voters[keyword] ?? []).sorted()))
                }
            }
            if let first { kept.append((label, first)) }
        }

        var copies = Array(repeating: weight, count: kept.count)
        var groups: [String: [Int]] = [:], order: [String] = []
        for (index, item) in kept.enumerated() where item.first.count == 1 {
            let key = item.first[0] + "\u{0}" + item.name.keywords[0]
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(index)
        }
        var capped: [Capped] = []
        for key in order {
            guard let members = groups[key], members.count * weight > cap else { continue }
            let each = cap / members.count
            for (position, index) in members.enumerated() {
                copies[index] = each >= 1 ? each : (position >= members.count - cap ? 1 : 0)
            }
            let first = kept[members[0]]
            capped.append(Capped(annotator: first.first[0], keyword: first.name.keywords[0], names: members.count,
                                 copies: members.reduce(0) { $0 + copies[$1] }))
        }
        let trained = kept.indices.filter { copies[$0] > 0 }
        names = trained.map { kept[$0].name }
        self.copies = trained.map { copies[$0] }
        self.newKeywords = newKeywords
        self.held = held
        self.capped = capped
    }
}
