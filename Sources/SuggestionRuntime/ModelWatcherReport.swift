// What a serve reports about the registry in /readyz: where the model comes from, a failed load, the shadow.
import StrictJSON

extension ModelWatcher {
    /// `/readyz` fields beside `model`: where the model comes from, the last failed load (the served model
    /// stayed), a registry that cannot be read (`registry`), and the shadow with its failed load.
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
        if let failure = status.registryFailure {
            json.field("registry") { json in
                json.object { json in json.field("error", string: failure) }
            }
        }
        if status.shadow != nil || status.shadowFailure != nil {
            json.field("shadow") { json in
                json.object { json in
                    if let shadow = status.shadow {
                        json.field("model", string: shadow)
                        json.field("fraction", number: status.shadowFraction)
                        let counts = self.shadow.counters
                        json.field("calibration") { json in
                            json.object { json in
                                json.field("decisions", int: counts.feedback)
                                json.field("live") { Self.write(counts.liveCalibration, into: &$0) }
                                json.field("shadow") { Self.write(counts.shadowCalibration, into: &$0) }
                            }
                        }
                    }
                    if let failure = status.shadowFailure {
                        json.field("error") { json in
                            json.object { json in
                                json.field("version", string: failure.version)
                                json.field("error", string: failure.message)
                            }
                        }
                    }
                }
            }
        }
    }

    /// One model's calibration on the decisions: what it would auto-accept, how often that was right (null before
    /// any), the share of decisions it covers and its ECE (both null before any decision).
    static func write(_ calibration: ShadowScorer.DecisionCalibration, into json: inout JSONWriter) {
        json.object { json in
            json.field("auto_accepted", int: calibration.autoAccepted)
            json.field("precision") { json in calibration.precision.map { json.number($0) } ?? json.null() }
            json.field("coverage") { json in calibration.coverage.map { json.number($0) } ?? json.null() }
            json.field("ece") { json in calibration.ece.map { json.number($0) } ?? json.null() }
        }
    }
}
