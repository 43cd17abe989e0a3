import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import StrictJSON
import XCTest

/// Replays the libFuzzer corpus kept in Fixtures/fuzz (inputs the fuzzer found interesting, minimized; see
/// fuzz/README.md) through the same checks as fuzz/FuzzTarget.swift, and through the whole API.
/// The first byte of each file chooses the mode: even = client byte stream, odd = JSON body.
final class FuzzCorpusTests: XCTestCase {
    /// The fuzz target's small limits, so corpus inputs hit the same limit paths they were found on.
    private let limits: HTTPLimits = {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 512
        limits.maxURIBytes = 128
        limits.maxHeaderCount = 8
        limits.maxBodyBytes = 256
        return limits
    }()

    private struct Trace: Equatable {
        var requests: [HTTPRequest] = []
        var ending = "needMore"
    }

    private func corpus() throws -> [(String, [UInt8])] {
        let directory = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures/fuzz", withExtension: nil))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { ($0, Array(try Data(contentsOf: directory.appendingPathComponent($0)))) }
    }

    /// Parses `bytes`, delivered up to each cut in turn (the buffer grows; the parser resumes).
    private func parse(_ bytes: [UInt8], cuts: [Int]) -> Trace {
        var parser = RequestParser(limits: limits)
        var trace = Trace()
        var start = 0
        var fed = 0
        for cut in cuts.map({ min($0, bytes.count) }) + [bytes.count] where cut > fed {
            fed = cut
            let buffer = Array(bytes[..<fed])
            pieces: while true {
                switch parser.parse(buffer, from: start) {
                case .needMore: break pieces
                case .failure(let error):
                    trace.ending = "\(error.status.code) \(error.code)"
                    return trace
                case .request(let request, let consumed):
                    guard consumed > 0 else { trace.ending = "consumed 0"; return trace }
                    trace.requests.append(request)
                    start += consumed
                }
            }
        }
        return trace
    }

    func testCorpusIsPresent() throws {
        XCTAssertGreaterThanOrEqual(try corpus().count, 20, "Fixtures/fuzz holds the fuzz regression corpus")
    }

    /// Every stream parses to the same requests and the same ending in one piece, in the fuzzer's pieces, and
    /// one byte at a time; every request and every JSON body gets a 2xx or a 4xx with the JSON error shape.
    func testCorpusReplaysWithoutCrashOrDisagreement() throws {
        let api = makeAPI()
        var streams = 0, bodies = 0
        for (name, data) in try corpus() {
            guard let selector = data.first else { continue }
            let rest = Array(data.dropFirst())
            if selector & 1 == 1 {
                bodies += 1
                for target in ["/v1/suggest", "/v1/suggest/batch", "/v1/keywords"] {
                    var request = makeRequest(.post, target, body: "")
                    request.body = rest
                    assertAnswered(api.respond(to: request), name)
                }
                continue
            }
            streams += 1
            let step = Int(selector >> 1) % 7 + 1
            let whole = parse(rest, cuts: [])
            XCTAssertEqual(whole, parse(rest, cuts: Array(stride(from: step, to: rest.count, by: step))), name)
            XCTAssertEqual(whole, parse(rest, cuts: Array(0..<rest.count)), name)
            for request in whole.requests {
                XCTAssertLessThanOrEqual(request.body.count, limits.maxBodyBytes, name)
                assertAnswered(api.respond(to: request), name)
            }
            if whole.ending != "needMore" {
                let code = Int(whole.ending.prefix(3)) ?? 0
                XCTAssertTrue((400..<600).contains(code), "\(name): \(whole.ending)")
            }
        }
        XCTAssertGreaterThan(streams, 0)
        XCTAssertGreaterThan(bodies, 0)
    }

    private func assertAnswered(_ response: HTTPResponse, _ name: String) {
        let code = response.status.code
        XCTAssertTrue(code < 500 || code == 501, "\(name): \(code) \(response.bodyText)")
        if code >= 400 {
            XCTAssertNotNil(errorCode(response), "\(name): \(response.bodyText)")
        }
    }
}
