// libFuzzer entry for the HTTP request parser and the JSON request decoding.
// Built by fuzz/build.sh against the StrictJSON, HTTPCore and APICore modules (outside the SwiftPM build, with
// testing enabled), so it reaches the parser's and the API's internal types through `@testable import`.
//
// The first input byte chooses what the rest is:
//   even → a byte stream from a client: parsed in one piece and again split at positions drawn from the
//          input; both runs must give the same requests and the same final outcome. Every request's body
//          and query then go through the API's decoding.
//   odd  → a JSON request body: decoded as a suggest, a batch and a keyword-update request would be.
// Any crash, trap, hang (libFuzzer -timeout) or broken invariant (a trap through `check`) is a finding.
@testable import APICore
@testable import HTTPCore
import StrictJSON

/// Stops the run (libFuzzer reports it as a crash and saves the input) when an invariant does not hold.
@inline(never)
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// What one parse run produced: the requests in order, then how it ended.
struct ParseTrace: Equatable {
    var requests: [HTTPRequest] = []
    var ending = "needMore"
}

let fuzzLimits: HTTPLimits = {
    var limits = HTTPLimits()
    // Small limits so the fuzzer reaches every limit path with short inputs.
    limits.maxHeaderBytes = 512
    limits.maxURIBytes = 128
    limits.maxHeaderCount = 8
    limits.maxBodyBytes = 256
    return limits
}()

let apiLimits: APILimits = {
    var limits = APILimits()
    limits.maxNameCharacters = 40
    limits.maxBatchNames = 8
    limits.maxKeywordChanges = 8
    limits.maxKeywordCharacters = 10
    return limits
}()

/// Parses everything `bytes` holds, as the connection does: requests are taken off the front one by one.
func parseAll(_ bytes: [UInt8]) -> ParseTrace {
    var parser = RequestParser(limits: fuzzLimits)
    var trace = ParseTrace()
    var start = 0
    while true {
        switch parser.parse(bytes, from: start) {
        case .needMore:
            return trace
        case .failure(let error):
            trace.ending = "\(error.status.code) \(error.code)"
            return trace
        case .request(let request, let consumed):
            check(consumed > 0 && start + consumed <= bytes.count, "consumed \(consumed) of \(bytes.count - start)")
            trace.requests.append(request)
            start += consumed
        }
    }
}

/// The same stream arriving in pieces: the buffer grows and the parser resumes where it stopped.
func parseInPieces(_ bytes: [UInt8], cuts: [Int]) -> ParseTrace {
    var parser = RequestParser(limits: fuzzLimits)
    var trace = ParseTrace()
    var buffer: [UInt8] = []
    var start = 0
    var fed = 0
    for cut in cuts.map({ min($0, bytes.count) }) + [bytes.count] where cut > fed {
        buffer.append(contentsOf: bytes[fed..<cut])
        fed = cut
        pieces: while true {
            switch parser.parse(buffer, from: start) {
            case .needMore:
                break pieces
            case .failure(let error):
                trace.ending = "\(error.status.code) \(error.code)"
                return trace
            case .request(let request, let consumed):
                check(consumed > 0 && start + consumed <= buffer.count, "consumed \(consumed)")
                trace.requests.append(request)
                start += consumed
            }
        }
    }
    return trace
}

/// Every error the API can answer must be a 4xx with a JSON body that our own parser reads back.
func checkErrorBody(_ error: APIError) {
    check((400..<500).contains(error.status.code), "status \(error.status.code) for \(error.code)")
    let response = error.response
    guard case .object(let fields)? = try? JSONParser.parse(response.body),
          case .object(let inner)? = fields["error"], case .string(let code)? = inner["code"] else {
        fatalError("error body is not the JSON error shape: \(response.bodyText)")
    }
    check(code == error.code.rawValue, "code \(code)")
}

/// The batch route's cap on JSON values (`ValueCaps.batch` for the default limits: twice the 1,000 names and
/// the object's few members, plus 16). `ValueCaps` needs the feedback types, which this build leaves out, and
/// a cap this size lets the fuzzer reach both sides of it.
let batchValueCap = 2_024

/// The API's decoding of one JSON body, as the suggest, batch and keyword handlers do it.
func decodeBody(_ body: [UInt8], contentType: String = "application/json") {
    var headers = HTTPHeaders()
    headers.add("Content-Type", contentType)
    let request = HTTPRequest(method: .post, target: "/v1/suggest", headers: headers, body: body)
    do throws(APIError) {
        let fields = try RequestDecoding.object(request, maxValues: batchValueCap)
        do throws(APIError) {
            try RequestDecoding.onlyFields(fields, ["name", "k", "explain"])
        } catch { checkErrorBody(error) }
        do throws(APIError) {
            let name = try RequestDecoding.name(fields["name"], limits: apiLimits)
            check(!name.isEmpty && !name.utf8.contains(0), "accepted name \(name.debugDescription)")
            check(name.count <= apiLimits.maxNameCharacters, "accepted a name of \(name.count) characters")
            let k = try RequestDecoding.k(fields["k"], limits: apiLimits)
            check(k >= 1 && k <= apiLimits.maxK, "accepted k \(k)")
            _ = try RequestDecoding.flag(fields["explain"], field: "explain", code: .invalidExplain)
        } catch { checkErrorBody(error) }
        do throws(APIError) {
            let names = try RequestDecoding.strings(fields["names"], field: "names", code: .invalidNames)
            for name in names.prefix(apiLimits.maxBatchNames) {
                do throws(APIError) { _ = try RequestDecoding.name(name, field: "names", limits: apiLimits) } catch { checkErrorBody(error) }
            }
        } catch { checkErrorBody(error) }
        do throws(APIError) {
            _ = try RequestDecoding.strings(fields["add"], field: "add", code: .invalidAdd)
            _ = try RequestDecoding.strings(fields["remove"], field: "remove", code: .invalidRemove)
        } catch { checkErrorBody(error) }
    } catch {
        checkErrorBody(error)
    }
}

/// A query string through %-decoding: accepted values are valid UTF-8 by construction.
func decodeQuery(_ query: String?) {
    do throws(APIError) {
        let pairs = try RequestDecoding.query(query, allowed: ["name", "k", "explain"])
        for (key, value) in pairs {
            check(JSONParser.firstInvalidUTF8(Array(key.utf8)) == nil && JSONParser.firstInvalidUTF8(Array(value.utf8)) == nil,
                  "decoded query is not UTF-8")
        }
    } catch {
        checkErrorBody(error)
    }
}

/// A JSON document: parse it; if it parses, writing a string field with our writer and reading it back
/// gives the same text (the writer's escaping round-trips whatever a client sent).
func checkJSON(_ bytes: [UInt8]) {
    guard let value = try? JSONParser.parse(bytes) else { return }
    if case .object(let fields) = value {
        for case (let key, .string(let text)) in fields.prefix(4) {
            var writer = JSONWriter()
            writer.object { json in json.field(key, string: text) }
            guard case .object(let back)? = try? JSONParser.parse(writer.bytes), case .string(let again)? = back[key] else {
                fatalError("writer output does not parse back: \(String(decoding: writer.bytes, as: UTF8.self))")
            }
            check(again == text, "round trip changed \(text.debugDescription)")
        }
    }
}

/// One fuzz input. Shared by the libFuzzer entry below and by nothing else.
func fuzzOne(_ data: [UInt8]) {
    guard let selector = data.first else { return }
    let rest = Array(data.dropFirst())
    if selector & 1 == 1 {
        checkJSON(rest)
        decodeBody(rest)
        return
    }
    let whole = parseAll(rest)
    // Cut positions drawn from the selector, so the same input always splits the same way.
    var cuts: [Int] = []
    if !rest.isEmpty {
        var position = 0
        let step = Int(selector >> 1) % 7 + 1
        while position < rest.count { position += step; cuts.append(position) }
    }
    let pieces = parseInPieces(rest, cuts: cuts)
    check(whole == pieces, "one-shot \(whole.requests.count) requests/\(whole.ending) but in pieces \(pieces.requests.count)/\(pieces.ending)")
    for request in whole.requests {
        check(request.body.count <= fuzzLimits.maxBodyBytes, "body over the limit")
        check(request.target.utf8.count <= fuzzLimits.maxURIBytes, "target over the limit")
        decodeQuery(request.query)
        decodeBody(request.body, contentType: request.headers["Content-Type"] ?? "application/json")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    fuzzOne(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
