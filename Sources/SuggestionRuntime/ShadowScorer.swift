// Scores a share of live suggest requests with a candidate model, after the answer and off the request path.
import Foundation
import Locking
import ModelStorage
import StoreInterface
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The candidate in shadow and its agreement counters. `offer` only samples and enqueues (O(1), under a lock);
/// one background thread at a lower CPU priority scores the queue. When the queue is full a request is not
/// scored and counted as dropped, so a slow candidate never slows the live answers.
public final class ShadowScorer: Sendable {
    /// What one sampled request needs: the name and the live model's top keyword.
    private enum Job {
        case suggest(name: String, liveTop: String?)
        /// An annotator's accepted or corrected keyword, scored by both models.
        case feedback(name: String, keyword: String, live: any SuggestionEngine)
    }

    private struct Slot {
        var engine: (any SuggestionEngine)?
        var version: String?
        var fraction: Double = 0
        /// Adds `fraction` per request; a request is sampled each time it passes 1 (no random numbers).
        var credit: Double = 0
        var queue: [Job] = []
    }

    /// Counters since start, for the metrics.
    public struct Counters: Sendable, Equatable {
        public var requests = 0
        public var agreements = 0
        public var dropped = 0
        public var feedback = 0
        public var feedbackLiveTop1 = 0
        public var feedbackShadowTop1 = 0
        /// Each model's calibration on the decisions scored since the shadow version last changed.
        public var liveCalibration = DecisionCalibration()
        public var shadowCalibration = DecisionCalibration()
        /// The candidate the calibration figures are for: a decision scored by an earlier candidate (taken from the
        /// queue before the candidate changed) is not added to them.
        var calibrationVersion: String?
    }

    /// A model's calibration against annotators' decisions, as the promote gate reads it on its sets: what it
    /// would auto-accept at the serving target (its `auto_accept`), how often that was the annotator's keyword,
    /// and how far its top-1 confidence is from how often it is right (ECE).
    public struct DecisionCalibration: Sendable, Equatable {
        /// Decisions whose name got a top suggestion with a confidence.
        public var scored = 0
        public var autoAccepted = 0
        public var autoAcceptedRight = 0
        public var bins = ReliabilityBins()

        mutating func add(_ result: SuggestionResult, keyword: String) {
            guard let top = result.suggestions.first, let confidence = top.confidence, confidence.isFinite else { return }
            scored += 1
            bins.add(confidence: confidence, correct: top.keyword == keyword)
            if result.autoAccept {
                autoAccepted += 1
                if top.keyword == keyword { autoAcceptedRight += 1 }
            }
        }

        /// The share of scored decisions auto-accepted; nil before any.
        public var coverage: Double? { scored == 0 ? nil : Double(autoAccepted) / Double(scored) }
        /// The share of auto-accepted decisions that were right; nil before any.
        public var precision: Double? { autoAccepted == 0 ? nil : Double(autoAcceptedRight) / Double(autoAccepted) }
        /// The expected calibration error of the top confidence; nil before any decision was scored.
        public var ece: Double? { scored == 0 ? nil : bins.ece }
    }

    private let slot = Locked(Slot())
    private let counts = Locked(Counters())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let queueLimit: Int

    public init(queueLimit: Int = 256) {
        self.queueLimit = queueLimit
        let thread = Thread { [self] in work() }
        thread.name = "kwsuggest-shadow"
        thread.start()
    }

    public var version: String? { slot.withLock { $0.version } }
    public var fraction: Double { slot.withLock { $0.fraction } }
    public var counters: Counters { counts.withLock { $0 } }

    /// Sets the candidate (nil ends the shadow) and the share of requests it scores. The candidate is scored as
    /// the model alone (`modelOnly`).
    public func set(_ engine: (any SuggestionEngine)?, fraction: Double) {
        let engine = engine?.modelOnly
        let changed = slot.withLock { slot -> Bool in
            let changed = engine == nil || slot.version != engine?.modelVersion
            if changed { slot.queue.removeAll() }
            slot.engine = engine
            slot.version = engine?.modelVersion
            slot.fraction = engine == nil ? 0 : fraction
            return changed
        }
        // The calibration figures compare this candidate with the live model: a new candidate starts them afresh.
        if changed {
            counts.withLock { counts in
                counts.liveCalibration = DecisionCalibration()
                counts.shadowCalibration = DecisionCalibration()
                counts.calibrationVersion = engine?.modelVersion
            }
        }
    }

    /// Changes only the share.
    public func setFraction(_ fraction: Double) {
        slot.withLock { if $0.engine != nil { $0.fraction = fraction } }
    }

    /// Re-reads the keyword changes of the store into the candidate, as the served engine does on a change.
    public func reloadKeywords() {
        _ = try? slot.withLock { $0.engine }?.reloadKeywords()
    }

    /// Called after a suggest answer was made: samples it and queues the candidate's scoring.
    public func offer(name: String, liveTop: String?) {
        enqueue(sampled: true) { .suggest(name: name, liveTop: liveTop) }
    }

    /// Called for a stored accept or correction: both models' top keyword (each model alone) is compared with the
    /// annotator's.
    public func offerFeedback(name: String, keyword: String, live: any SuggestionEngine) {
        let live = live.modelOnly
        enqueue(sampled: false) { .feedback(name: name, keyword: keyword, live: live) }
    }

    private func enqueue(sampled: Bool, _ job: () -> Job) {
        let queued = slot.withLock { slot -> Bool? in
            guard slot.engine != nil else { return nil }
            if sampled {
                slot.credit += slot.fraction
                guard slot.credit >= 1 else { return nil }
                slot.credit -= 1
            }
            guard slot.queue.count < queueLimit else { return false }
            slot.queue.append(job())
            return true
        }
        switch queued {
        case true?: wake.signal()
        case false?: counts.withLock { $0.dropped += 1 }
        case nil: break
        }
    }

    private func work() {
        // A lower priority for this thread only (Linux keeps the nice value per thread): the live answers come
        // first on a busy machine.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        while !stopped.load(ordering: .relaxed) {
            wake.wait()
            while let (job, engine) = slot.withLock({ slot -> (Job, any SuggestionEngine)? in
                guard let engine = slot.engine, !slot.queue.isEmpty else { return nil }
                return (slot.queue.removeFirst(), engine)
            }) {
                score(job, with: engine)
            }
        }
    }

    private func score(_ job: Job, with engine: any SuggestionEngine) {
        switch job {
        case .suggest(let name, let liveTop):
            let top = engine.suggest(name, k: 1, explain: false).suggestions.first?.keyword
            counts.withLock { counts in
                counts.requests += 1
                if top == liveTop { counts.agreements += 1 }
            }
        case .feedback(let name, let keyword, let live):
            let shadowResult = engine.suggest(name, k: 1, explain: false)
            let liveResult = live.suggest(name, k: 1, explain: false)
            counts.withLock { counts in
                counts.feedback += 1
                if liveResult.suggestions.first?.keyword == keyword { counts.feedbackLiveTop1 += 1 }
                if shadowResult.suggestions.first?.keyword == keyword { counts.feedbackShadowTop1 += 1 }
                guard counts.calibrationVersion == engine.modelVersion else { return }
                counts.liveCalibration.add(liveResult, keyword: keyword)
                counts.shadowCalibration.add(shadowResult, keyword: keyword)
            }
        }
    }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
        wake.signal()
    }
}
