// What a serve reports about the registry: /readyz fields and metrics of swaps, failed loads and the shadow.
import StrictJSON

extension ModelWatcher {
    /// `/readyz` fields beside `model`: where the model comes from, the last failed load (the served model
    /// stayed), and the shadow.
    public func writeReadyFields(into json: inout JSONWriter) {
        let status = self.status
        json.field("model_source", string: status.source.rawValue)
        if let failure = status.failure {
            json.field("model_load_error") { json in
                json.object { json in
                    json.field("version", string: failure.version)
                    json.field("error", string: failure.message)
                }
            }
        }
        if let shadow = status.shadow {
            json.field("shadow") { json in
                json.object { json in
                    json.field("model", string: shadow)
                    json.field("fraction", number: status.shadowFraction)
                }
            }
        }
    }

    /// Prometheus text; `label` escapes a label value.
    public func metricsText(label: (String) -> String) -> String {
        let status = self.status, counts = shadow.counters
        var text = "# HELP kwsuggest_model_source Where the served model comes from: the registry's live version or --model.\n"
        text += "# TYPE kwsuggest_model_source gauge\n"
        for source in [ModelStatus.Source.registry, .fallback] {
            text += "kwsuggest_model_source{source=\"\(source.rawValue)\"} \(status.source == source ? 1 : 0)\n"
        }
        text += "# HELP kwsuggest_model_swaps_total Models installed by this process (the first load included).\n"
        text += "# TYPE kwsuggest_model_swaps_total counter\nkwsuggest_model_swaps_total \(status.swaps)\n"
        text += "# HELP kwsuggest_model_load_failures_total Model versions that failed to load; the served model stayed.\n"
        text += "# TYPE kwsuggest_model_load_failures_total counter\nkwsuggest_model_load_failures_total \(status.failures)\n"
        text += "# HELP kwsuggest_model_load_failed 1 while the newest wanted version has failed to load.\n"
        text += "# TYPE kwsuggest_model_load_failed gauge\n"
        if let failure = status.failure {
            text += "kwsuggest_model_load_failed{version=\"\(label(failure.version))\"} 1\n"
        }
        text += "# HELP kwsuggest_shadow_info The version in shadow and the share of suggest requests it scores.\n"
        text += "# TYPE kwsuggest_shadow_info gauge\n"
        if let version = status.shadow {
            text += "kwsuggest_shadow_info{version=\"\(label(version))\"} \(status.shadowFraction)\n"
        }
        text += "# HELP kwsuggest_shadow_requests_total Suggest requests the shadow scored.\n"
        text += "# TYPE kwsuggest_shadow_requests_total counter\nkwsuggest_shadow_requests_total \(counts.requests)\n"
        text += "# HELP kwsuggest_shadow_top1_agreements_total Scored requests whose top keyword was the live model's.\n"
        text += "# TYPE kwsuggest_shadow_top1_agreements_total counter\nkwsuggest_shadow_top1_agreements_total \(counts.agreements)\n"
        text += "# HELP kwsuggest_shadow_dropped_total Sampled requests not scored because the shadow's queue was full.\n"
        text += "# TYPE kwsuggest_shadow_dropped_total counter\nkwsuggest_shadow_dropped_total \(counts.dropped)\n"
        text += "# HELP kwsuggest_shadow_feedback_total Accepts and corrections scored by both models.\n"
        text += "# TYPE kwsuggest_shadow_feedback_total counter\nkwsuggest_shadow_feedback_total \(counts.feedback)\n"
        text += "# HELP kwsuggest_shadow_feedback_top1_total Of those, how often the annotator's keyword was each model's top one.\n"
        text += "# TYPE kwsuggest_shadow_feedback_top1_total counter\n"
        text += "kwsuggest_shadow_feedback_top1_total{model=\"live\"} \(counts.feedbackLiveTop1)\n"
        text += "kwsuggest_shadow_feedback_top1_total{model=\"shadow\"} \(counts.feedbackShadowTop1)\n"
        return text
    }
}
