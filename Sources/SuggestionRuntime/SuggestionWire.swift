// The one wire form of a suggestion result, written the same way by `kwsuggest suggest --json` and by the HTTP
// answers: the same keys in the same order, scores and weights in their shortest round-trip form, confidences
// to six decimals, and a score that is not a finite number refused as an error, never written.
import StrictJSON

/// Writes suggestion results as JSON.
public enum SuggestionWire {
    /// A result with a score or an attention weight that is not a finite number: a damaged model.
    public struct NonFiniteScore: Error, Sendable, CustomStringConvertible {
        /// The product name the result is for.
        public var name: String
        public var description: String { "the model produced a score that is not a number for \(JSONWriter.quoted(String(name.prefix(200))))" }
    }

    /// Throws when a score or a weight of `result` is NaN or infinite.
    public static func check(_ result: SuggestionResult) throws(NonFiniteScore) {
        for suggestion in result.suggestions {
            guard suggestion.score.isFinite, suggestion.weights?.allSatisfy({ $0.weight.isFinite }) ?? true else {
                throw NonFiniteScore(name: result.name)
            }
        }
    }

    /// The result's members, in order: `name`, `tokens` (with `explain`), `suggestions`, `auto_accept`, and
    /// `reason` when there are no suggestions. The caller opens the object and may add members after these.
    /// Check the result first (`check`).
    public static func writeMembers(_ result: SuggestionResult, name: String, explain: Bool, into json: inout JSONWriter) {
        json.field("name", string: name)
        if explain, let tokens = result.tokens {
            json.field("tokens") { json in json.array { json in for token in tokens { json.string(token) } } }
        }
        json.field("suggestions") { json in writeSuggestions(result.suggestions, explain: explain, into: &json) }
        json.field("auto_accept", bool: result.autoAccept)
        if let reason = result.reason { json.field("reason", string: reason.rawValue) }
    }

    /// The suggestions array: `keyword`, `score`, `confidence` (when calibrated, six decimals), `source`, and with
    /// `explain` `remembered` (for the memory's keywords) and `weights`.
    public static func writeSuggestions(_ suggestions: [Suggestion], explain: Bool, into json: inout JSONWriter) {
        json.array { json in
            for suggestion in suggestions {
                json.object { json in
                    json.field("keyword", string: suggestion.keyword)
                    json.field("score") { $0.number(suggestion.score) }
                    if let confidence = suggestion.confidence { json.field("confidence", number: (confidence * 1e6).rounded() / 1e6) }
                    json.field("source", string: suggestion.source.rawValue)
                    if explain, let remembered = suggestion.remembered {
                        json.field("remembered") { json in
                            json.object { json in
                                json.field("name", string: remembered.name)
                                json.field("annotators", int: remembered.annotators)
                            }
                        }
                    }
                    if explain, let weights = suggestion.weights {
                        json.field("weights") { json in
                            json.array { json in
                                for weight in weights {
                                    json.object { json in
                                        json.field("token", string: weight.token)
                                        json.field("weight") { $0.number(weight.weight) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
