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
}
