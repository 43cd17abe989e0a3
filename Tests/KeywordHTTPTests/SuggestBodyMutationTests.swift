import Foundation
@testable import KeywordHTTP
import HTTPCore
import MutationTesting
import XCTest

/// Mutated request bodies through the application's decode path.
final class SuggestBodyMutationTests: XCTestCase {
    /// Mutated request bodies through the whole decode path: always 200 or a 400 with the JSON error shape.
    func testMutatedSuggestBodiesAnswer200Or400() {
        let api = makeAPI()
        let seeds = [#"{"name": "淡路島産 にんじん", "k": 5, "explain": true}"#, #"{"names": ["トマト", "豚肉"], "k": 2}"#]
            .map { Array($0.utf8) }
        var generator = SplitMix(seed: fuzzSeed(default: 11))
        for iteration in 0..<fuzzIterations(default: 20_000) / 4 {
            var bytes = seeds[iteration % 2]
            generator.mutate(&bytes)
            var request = makeRequest(.post, iteration % 2 == 0 ? "/v1/suggest" : "/v1/suggest/batch", body: "")
            request.body = bytes
            let response = api.respond(to: request)
            if response.status.code != 200 {
                XCTAssertEqual(response.status.code, 400)
                XCTAssertNotNil(errorCode(response), response.bodyText)
            }
        }
    }
}
