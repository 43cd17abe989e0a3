import APICore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import Locking
import SuggestionRuntime
import StoreInterface
import StrictJSON
import Synchronization
import XCTest

/// A deterministic engine: keywords containing a character of the name rank first; records calls.
final class FakeEngine: SuggestionEngine {
    let modelVersion: String
    private let keywords: Locked<[String]>
    private let failUpdates: Bool
    /// The list's size rule, as the real engine applies it.
    private let maxKeywords: Int
    let reloads = Atomic<Int>(0)
    /// Every change applied, as the store received it.
    let changes = Locked<[KeywordChange]>([])
    /// When set, each suggest call signals `entered` and then waits for `gate`: a test holds a request in flight
    /// for exactly as long as it needs, and knows when it has arrived, without sleeping.
    let gate: DispatchSemaphore?
    let entered = DispatchSemaphore(value: 0)

    init(keywords: [String] = ["にんじん", "たまねぎ", "じゃがいも", "豚肉", "牛肉", "キャベツ", "トマト"],
         version: String = "fake-1", failUpdates: Bool = false, gated: Bool = false,
         maxKeywords: Int = KeywordRules.maxKeywords) {
        self.keywords = Locked(keywords)
        self.maxKeywords = maxKeywords
        modelVersion = version
        self.failUpdates = failUpdates
        gate = gated ? DispatchSemaphore(value: 0) : nil
    }

    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        if let gate {
            entered.signal()
            gate.wait()
        }
        let list = keywords.withLock { $0 }
        let ranked = list.enumerated().map { (offset, keyword) -> Suggestion in
            let shared = Set(keyword).intersection(Set(name)).count
            var suggestion = Suggestion(keyword: keyword, score: Float(shared) + 1 / Float(offset + 2))
            if explain { suggestion.weights = [TokenWeight(token: name, weight: 1)] }
            return suggestion
        }.sorted { $0.score > $1.score }
        return SuggestionResult(name: name, tokens: explain ? [name] : nil, suggestions: Array(ranked.prefix(k)))
    }

    func keywordList() -> KeywordListSnapshot {
        let list = keywords.withLock { $0 }
        return KeywordListSnapshot(keywords: list, version: "v\(list.count)")
    }

    struct Failure: Error {}

    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot {
        if failUpdates { throw Failure() }
        changes.withLock { $0.append(change) }
        try keywords.withLock { list in
            if let expected = change.expectedVersion, expected != "v\(list.count)" {
                throw KeywordStoreError.versionMismatch(current: "v\(list.count)")
            }
            var next = list.filter { !change.remove.contains($0) }
            for keyword in change.add where !next.contains(keyword) { next.append(keyword) }
            try KeywordRules.checkListSize(next.count, previous: list.count, limit: maxKeywords)
            list = next
        }
        return keywordList()
    }

    func reloadKeywords() throws -> KeywordListSnapshot {
        reloads.add(1, ordering: .relaxed)
        return keywordList()
    }
}

func makeAPI(engine: (any SuggestionEngine)? = FakeEngine(), cors: [String] = [], token: String? = nil,
             annotators: AnnotatorTokens = AnnotatorTokens(),
             metrics: ServerMetrics = KeywordAPI.makeMetrics(), store: (any KeywordStore)? = nil) -> KeywordAPI {
    var configuration = APIConfiguration()
    configuration.cors = CORSPolicy(allowedOrigins: cors)
    configuration.adminToken = token
    configuration.annotators = annotators
    let state = engine.map { EngineSlot(engine: $0, store: store) } ?? EngineSlot()
    return KeywordAPI(configuration: configuration, state: state, metrics: metrics)
}

func makeRequest(_ method: HTTPMethod = .get, _ target: String, headers: [(String, String)] = [], body: String? = nil,
                 json: Bool = true) -> HTTPRequest {
    var all = HTTPHeaders(headers)
    // Every HTTP/1.1 request names a host; a loopback one, as a client on this machine sends.
    if all["Host"] == nil { all.add("Host", "127.0.0.1") }
    if body != nil && json && all["Content-Type"] == nil { all.add("Content-Type", "application/json") }
    return HTTPRequest(method: method, target: target, headers: all, body: Array((body ?? "").utf8))
}

func makeConfiguration(_ change: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.eventLoops = 2
    configuration.accessLog = false
    configuration.drainTimeout = 5
    change(&configuration)
    return configuration
}

/// Decodes a JSON body with Foundation (an independent parser, to check ours).
func jsonObject(_ response: HTTPResponse, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
    let value = try? JSONSerialization.jsonObject(with: Data(response.body))
    guard let object = value as? [String: Any] else {
        XCTFail("not a JSON object: \(response.bodyText)", file: file, line: line)
        return [:]
    }
    return object
}

/// The keywords of a suggest response body (`suggestions[].keyword`), in order; empty when there are none.
func suggestedKeywords(_ body: String) -> [String] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
          let suggestions = object["suggestions"] as? [[String: Any]] else { return [] }
    return suggestions.compactMap { $0["keyword"] as? String }
}

/// The keywords of each result of a batch response body (`results[].suggestions[].keyword`).
func batchKeywords(_ body: String) -> [[String]] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
          let results = object["results"] as? [[String: Any]] else { return [] }
    return results.map { ($0["suggestions"] as? [[String: Any]] ?? []).compactMap { $0["keyword"] as? String } }
}

func errorCode(_ response: HTTPResponse) -> String? {
    ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])
        .flatMap { $0["error"] as? [String: Any] }?["code"] as? String
}

/// A blocking TCP or socketpair client that reads raw responses with a deadline.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        receiveTimeout(seconds: 5)
    }

    /// How long a read waits for the peer before it counts as a timeout.
    func receiveTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    convenience init(port: Int, host: String = "127.0.0.1") throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else { throw ClientError("resolve") }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError("socket") }
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            close(fd)
            throw ClientError("connect errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.init(fd: fd)
    }

    deinit { close(fd) }

    struct ClientError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count <= 0 { return }
                offset += count
            }
        }
    }

    /// Reads until the peer closes or the timeout passes.
    func readToEnd() -> String {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
        }
        defer { buffer = [] }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// True when the peer has closed (read returns 0) within the receive timeout.
    func isClosed() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    /// Reads one interim (1xx) response head such as `100 Continue`, leaving what follows; "" on close/timeout.
    func readInterim() -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == [13, 10, 13, 10] }) {
                let head = String(decoding: buffer[0..<(end + 4)], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return head
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return "" }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads exactly one response (status line, headers, Content-Length body). nil on close/timeout.
    func readResponse() -> ParsedResponse? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let response = ParsedResponse.take(from: &buffer) { return response }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

struct ParsedResponse {
    var status: Int
    var headers: [(String, String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var errorCode: String? {
        ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }

    /// A complete chunked body at the front of `bytes` (RFC 9112 §7.1, no trailers): the body and the bytes it used.
    static func dechunk(_ bytes: ArraySlice<UInt8>) -> ([UInt8], Int)? {
        var body: [UInt8] = []
        var index = bytes.startIndex
        while true {
            guard let lf = bytes[index...].firstIndex(of: 10) else { return nil }
            let sizeText = String(decoding: bytes[index..<lf], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let size = Int(sizeText, radix: 16) else { return nil }
            index = lf + 1
            if size == 0 {
                guard bytes.endIndex - index >= 2 else { return nil }
                return (body, index + 2 - bytes.startIndex)
            }
            guard bytes.endIndex - index >= size + 2 else { return nil }
            body += bytes[index..<(index + size)]
            index += size + 2
        }
    }

    /// Takes one response off the front of `buffer` if it is complete. HEAD responses must use `takeHead`.
    static func take(from buffer: inout [UInt8], bodyless: Bool = false) -> ParsedResponse? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == separator }) else {
            return nil
        }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let status = Int(statusLine.split(separator: " ")[1]) ?? 0
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let chunked = headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }
        if chunked && !bodyless {
            guard let (body, consumed) = dechunk(buffer[(end + 4)...]) else { return nil }
            buffer.removeFirst(end + 4 + consumed)
            return ParsedResponse(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
        }
        let length = bodyless ? 0 : (headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0)
        guard buffer.count >= end + 4 + length else { return nil }
        let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        buffer.removeFirst(end + 4 + length)
        return ParsedResponse(status: status, headers: headers, body: body)
    }
}

/// A live server on loopback port 0 with a fake engine, stopped at the end of the test.
final class LiveServer {
    let server: HTTPServer
    let api: KeywordAPI
    var port: Int { server.port }

    init(engine: (any SuggestionEngine)? = FakeEngine(), cors: [String] = [], token: String? = nil,
         _ change: (inout ServerConfiguration) -> Void = { _ in }) throws {
        // The route caps as `serve` sets them; `change` may then lower the HTTP layer's ceiling again.
        var configuration = makeConfiguration()
        let metrics = KeywordAPI.makeMetrics(shards: configuration.eventLoops)
        api = makeAPI(engine: engine, cors: cors, token: token, metrics: metrics)
        configuration = api.serverConfiguration(configuration)
        change(&configuration)
        server = try HTTPServer(configuration: configuration, responder: api, metrics: metrics)
        try server.start()
    }

    func client() throws -> RawClient { try RawClient(port: port) }

    func stop() {
        server.shutdown()
        server.wait()
    }
}
