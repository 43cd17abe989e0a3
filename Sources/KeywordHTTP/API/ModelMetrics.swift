// The metrics of the model registry: where the served model comes from, swaps, failed loads and the shadow.
import HTTPCore
import SuggestionRuntime

extension ModelWatcher {
    func render(into text: inout PrometheusText) {
        let status = self.status, counts = shadow.counters
        text.family("kwsuggest_model_source", .gauge, help: "Where the served model comes from: the registry's live version or --model.")
        for source in [ModelStatus.Source.registry, .fallback] {
            text.sample("kwsuggest_model_source", labels: ["source": source.rawValue], status.source == source ? 1 : 0)
        }
        text.single("kwsuggest_model_swaps_total", .counter, help: "Models installed by this process (the first load included).",
                    status.swaps)
        text.single("kwsuggest_model_load_failures_total", .counter,
                    help: "Model versions that failed to load; the served model stayed.", status.failures)
        text.family("kwsuggest_model_load_failed", .gauge, help: "1 while the newest wanted version has failed to load.")
        if let failure = status.failure {
            text.sample("kwsuggest_model_load_failed", labels: ["version": failure.version], 1)
        }
        text.single("kwsuggest_registry_failures_total", .counter,
                    help: "Reads of the model registry that failed (a damaged catalog, an unreachable database).",
                    status.registryFailures)
        text.single("kwsuggest_registry_failed", .gauge, help: "1 while the model registry cannot be read.",
                    status.registryFailure == nil ? 0 : 1)
        text.single("kwsuggest_shadow_load_failures_total", .counter, help: "Shadow versions that failed to load.",
                    status.shadowFailures)
        text.family("kwsuggest_shadow_info", .gauge, help: "The version in shadow and the share of suggest requests it scores.")
        if let version = status.shadow {
            text.sample("kwsuggest_shadow_info", labels: ["version": version], status.shadowFraction)
        }
        text.single("kwsuggest_shadow_requests_total", .counter, help: "Suggest requests the shadow scored.", counts.requests)
        text.single("kwsuggest_shadow_top1_agreements_total", .counter,
                    help: "Scored requests whose top keyword was the live model's.", counts.agreements)
        text.single("kwsuggest_shadow_dropped_total", .counter,
                    help: "Sampled requests not scored because the shadow's queue was full.", counts.dropped)
        text.single("kwsuggest_shadow_feedback_total", .counter, help: "Accepts and corrections scored by both models.",
                    counts.feedback)
        text.family("kwsuggest_shadow_feedback_top1_total", .counter,
                    help: "Of those, how often the annotator's keyword was each model's top one.")
        text.sample("kwsuggest_shadow_feedback_top1_total", labels: ["model": "live"], counts.feedbackLiveTop1)
        text.sample("kwsuggest_shadow_feedback_top1_total", labels: ["model": "shadow"], counts.feedbackShadowTop1)
        let calibrations = [("live", counts.liveCalibration), ("shadow", counts.shadowCalibration)]
        let counted: [(name: String, help: String, value: (ShadowScorer.DecisionCalibration) -> Int)] = [
            ("kwsuggest_shadow_feedback_scored", "Accepts and corrections each model ranked, since the shadow version last changed.", \.scored),
            ("kwsuggest_shadow_feedback_auto_accepted", "Of those, how many each model would auto-accept at the serving target.", \.autoAccepted),
            ("kwsuggest_shadow_feedback_auto_accepted_right", "Of the auto-accepted ones, how many had the annotator's keyword first.", \.autoAcceptedRight),
        ]
        for family in counted {
            text.family(family.name, .gauge, help: family.help)
            for (model, calibration) in calibrations {
                text.sample(family.name, labels: ["model": model], family.value(calibration))
            }
        }
        text.family("kwsuggest_shadow_feedback_ece", .gauge,
                    help: "Each model's expected calibration error of its top confidence on those decisions (ten bins); absent before any.")
        for (model, calibration) in calibrations {
            if let ece = calibration.ece { text.sample("kwsuggest_shadow_feedback_ece", labels: ["model": model], ece) }
        }
    }
}
