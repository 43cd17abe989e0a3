import Foundation
import XCTest

/// Runs `kwsuggest serve` as a process: listening line, readiness, keyword persistence across a restart,
/// overlay reload on SIGHUP, and exit 0 on SIGTERM.
final class CLIServeTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = try Self.makeModelDirectory("cli-serve")
    }

    /// A model directory of its own: the shipped model's files linked in, with a short keyword list (so the
    /// servers run with --no-verify: keywords.txt differs from the manifest's checksum on purpose).
    static func makeModelDirectory(_ prefix: String) throws -> String {
        let directory = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shipped = CLITests.packageRoot.appendingPathComponent("models/default").path
        for file in try FileManager.default.contentsOfDirectory(atPath: shipped)
        where file != "keywords.txt" && !file.hasPrefix("keywords.overlay") {
            try FileManager.default.createSymbolicLink(atPath: directory + "/" + file, withDestinationPath: shipped + "/" + file)
        }
        try "にんじん\nたまねぎ\n豚バラ肉\nトマト\nじゃがいも\nキャベツ\n".write(toFile: directory + "/keywords.txt", atomically: true, encoding: .utf8)
        return directory
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A running `serve` process and the port it printed.
    final class Server {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        var port = 0

        /// - Parameter keepLog: false sends stderr (the access log) to /dev/null, for tests that make so many
        ///   requests that an unread pipe would fill and stall the server.
        ///   `unsetting` names environment variables the server must not see; `workingDirectory` is its working
        ///   directory (this process's when nil).
        init(arguments: [String], environment: [String: String] = [:], unsetting: [String] = [], keepLog: Bool = true,
             workingDirectory: String? = nil) throws {
            process.executableURL = CLITests.binary
            process.arguments = ["serve", "--port", "0"] + arguments
            if !environment.isEmpty || !unsetting.isEmpty {
                var values = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                for name in unsetting { values[name] = nil }
                process.environment = values
            }
            if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
            process.standardOutput = output
            if keepLog { process.standardError = errors } else { process.standardError = FileHandle.nullDevice }
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(10)
            while !text.contains("\n"), Date() < deadline {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard text.hasPrefix("listening on http://127.0.0.1:"),
                  let port = Int(text.split(separator: "\n")[0].split(separator: ":").last ?? "") else {
                throw CLIServeError("unexpected first line: \(text)")
            }
            self.port = port
        }

        /// Sends SIGTERM and returns the exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    struct CLIServeError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// One request over a fresh TCP connection; returns status and body.
    private func request(_ port: Int, _ method: String, _ path: String, body: String? = nil,
                         host: String = "127.0.0.1") throws -> (Int, String) {
        try Self.request(port, method, path, body: body, host: host)
    }

    static func request(_ port: Int, _ method: String, _ path: String, body: String? = nil,
                        host: String = "127.0.0.1") throws -> (Int, String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CLIServeError("connect failed") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        let response = String(decoding: received, as: UTF8.self)
        guard let split = response.range(of: "\r\n\r\n") else { throw CLIServeError("no response: \(response)") }
        let status = Int(response.split(separator: " ")[1]) ?? 0
        var body = String(response[split.upperBound...])
        if response[..<split.lowerBound].lowercased().contains("transfer-encoding: chunked") {
            // Chunk sizes in hex on their own lines, each chunk followed by CRLF, a last chunk of size 0.
            var rest = Array(body.utf8)[...]
            var decoded: [UInt8] = []
            while let lf = rest.firstIndex(of: 10),
                  let size = Int(String(decoding: rest[rest.startIndex..<lf], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16),
                  size > 0, rest.endIndex - (lf + 1) >= size {
                decoded += rest[(lf + 1)..<(lf + 1 + size)]
                rest = rest[min(rest.endIndex, lf + 1 + size + 2)...]
            }
            body = String(decoding: decoded, as: UTF8.self)
        }
        return (status, body)
    }

    static func waitUntilReady(_ port: Int) throws {
        // Generous: a debug build loads the model in a second or two, longer on a busy machine.
        for _ in 0..<600 {
            if try Self.request(port, "GET", "/readyz").0 == 200 { return }
            usleep(50_000)
        }
        XCTFail("never became ready")
    }

    private func waitUntilReady(_ port: Int) throws { try Self.waitUntilReady(port) }

    func testServeAnswersPersistsKeywordsAndExitsZeroOnSIGTERM() throws {
        let server = try Server(arguments: ["--model", directory, "--no-verify"])
        try waitUntilReady(server.port)
        let (status, body) = try request(server.port, "POST", "/v1/suggest", body: #"{"name":"新物 にんじん 3本","k":1}"#)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(body.contains(#""keyword":"にんじん""#), body)
        let (added, list) = try request(server.port, "POST", "/v1/keywords", body: #"{"add":["ごぼう"]}"#)
        XCTAssertEqual(added, 200, list)
        // Writes are open here (no token): a page that rebound its own name to 127.0.0.1 is refused.
        let (rebound, refusal) = try request(server.port, "POST", "/v1/keywords", body: #"{"add":["ごぼう"]}"#,
                                             host: "attacker.example")
        XCTAssertEqual(rebound, 403, refusal)
        XCTAssertTrue(refusal.contains("host_not_allowed"), refusal)
        XCTAssertEqual(try request(server.port, "GET", "/v1/feedback/export", host: "attacker.example:8080").0, 403)
        XCTAssertEqual(server.stop(), 0)
        let log = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains(#""event":"draining""#), log)
        // One line says which model is served and from where, one when the server turned ready.
        let loaded = log.split(separator: "\n").filter { $0.contains(#""event":"model_loaded""#) }
        XCTAssertEqual(loaded.count, 1, log)
        XCTAssertTrue(loaded.first?.contains(#""source":"fallback \#(directory)""#) ?? false, log)
        XCTAssertEqual(log.split(separator: "\n").filter { $0.contains(#""event":"ready""#) }.count, 1, log)

        // The addition survives a restart.
        let again = try Server(arguments: ["--model", directory, "--no-verify"])
        try waitUntilReady(again.port)
        XCTAssertTrue(try request(again.port, "GET", "/v1/keywords").1.contains("ごぼう"))
        XCTAssertEqual(again.stop(), 0)
    }

    func testOverlayChangedByAnotherReplicaIsReloadedOnSIGHUP() throws {
        let overlay = directory + "/shared.overlay.json"
        let server = try Server(arguments: ["--model", directory, "--overlay", overlay, "--no-verify"])
        try waitUntilReady(server.port)
        try #"{"added":["れんこん"],"removed":[]}"#.write(toFile: overlay, atomically: true, encoding: .utf8)
        kill(server.process.processIdentifier, SIGHUP)
        var seen = false
        for _ in 0..<60 where !seen {
            usleep(50_000)
            seen = try request(server.port, "GET", "/v1/keywords").1.contains("れんこん")
        }
        XCTAssertTrue(seen)
        XCTAssertEqual(server.stop(), 0)
    }

    func testMissingModelIsAClearErrorAndExitOne() throws {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["serve", "--port", "0", "--model", directory + "/missing"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("Error: cannot load the model"), text)
    }

    /// Without --model or KWSUGGEST_MODEL, a server started in a directory with no models/default finds the
    /// repository's model above its executable, logs that directory, and becomes ready.
    func testServeFromAnotherDirectoryFindsTheModelAboveTheExecutable() throws {
        let elsewhere = directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let server = try Server(arguments: ["--store", "file:" + directory + "/elsewhere.overlay.json"],
                                unsetting: ["KWSUGGEST_MODEL", "KWSUGGEST_STORE"], workingDirectory: elsewhere)
        try waitUntilReady(server.port)
        let (status, body) = try request(server.port, "POST", "/v1/suggest", body: #"{"name":"新物 にんじん 3本","k":1}"#)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(body.contains(#""keyword":"にんじん""#), body)
        XCTAssertEqual(server.stop(), 0)
        let log = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let shipped = CLITests.packageRoot.appendingPathComponent("models/default").resolvingSymlinksInPath().path
        let logged = log.split(separator: "\n").first { $0.contains(#""event":"model_directory""#) }.map(String.init) ?? ""
        XCTAssertTrue(logged.contains(#""source":"above the executable""#), log)
        let path = logged.components(separatedBy: #""path":""#).dropFirst().first?.components(separatedBy: "\"").first
        XCTAssertEqual(path.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }, shipped, log)
    }

    func testOpenWritesAreRefusedOnNonLoopbackAndWarnedOnLoopback() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["KWSUGGEST_ADMIN_TOKEN"] = nil
        let refused = try CLITests.run(["serve", "--host", "0.0.0.0", "--port", "0", "--model", directory + "/missing"],
                                       environment: environment)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("Error: refusing to serve open keyword writes on 0.0.0.0"), refused.stderr)
        XCTAssertFalse(refused.stdout.contains("listening"), refused.stdout)
        // On loopback it starts (and here fails later, on the missing model) after a warning.
        let warned = try CLITests.run(["serve", "--port", "0", "--model", directory + "/missing"], environment: environment)
        XCTAssertTrue(warned.stderr.contains(#""event":"warning","message":"keyword writes are open"#), warned.stderr)
        let anyOrigin = try CLITests.run(["serve", "--port", "0", "--cors-origin", "*", "--model", directory + "/missing"],
                                         environment: environment)
        XCTAssertTrue(anyOrigin.stderr.contains(#""message":"--cors-origin '*' with open writes"#), anyOrigin.stderr)
        XCTAssertFalse(warned.stderr.contains("--cors-origin"), warned.stderr)
        let badHost = try CLITests.run(["serve", "--port", "0", "--allowed-host", "host:8080", "--model", directory + "/missing"],
                                       environment: environment)
        XCTAssertEqual(badHost.status, 64)
        XCTAssertTrue(badHost.stderr.contains("--allowed-host 'host:8080' is not a host name"), badHost.stderr)
        environment["KWSUGGEST_ADMIN_TOKEN"] = "two words"
        let bad = try CLITests.run(["serve", "--port", "0", "--model", directory + "/missing"], environment: environment)
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("KWSUGGEST_ADMIN_TOKEN holds white space"), bad.stderr)
        environment["KWSUGGEST_ADMIN_TOKEN"] = "secret\n"
        let trimmed = try CLITests.run(["serve", "--host", "0.0.0.0", "--port", "0", "--model", directory + "/missing"],
                                       environment: environment)
        XCTAssertFalse(trimmed.stderr.contains("keyword writes are open"), trimmed.stderr)
        XCTAssertTrue(trimmed.stderr.contains("Error: cannot load the model"), trimmed.stderr)
    }

    func testBadPortIsAUsageError() throws {
        let outcome = try CLITests.run(["serve", "--port", "70000"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: The value '70000' is invalid for '--port <port>'"), outcome.stderr)
    }

    /// Three processes on one file store, 50 concurrent writers spread over them: every acknowledged keyword is
    /// in the file and, within a few seconds, on every process.
    func testThreeProcessesOnOneFileStoreLoseNoWrite() throws {
        let store = "file:" + directory + "/shared.overlay.json"
        let servers = try (0..<3).map { _ in try Server(arguments: ["--model", directory, "--store", store, "--no-verify"], keepLog: false) }
        defer { for server in servers { _ = server.stop() } }
        for server in servers { try waitUntilReady(server.port) }
        let statuses = StatusList()
        let ports = servers.map(\.port)
        DispatchQueue.concurrentPerform(iterations: 50) { writer in
            let status = (try? Self.request(ports[writer % 3], "POST", "/v1/keywords", body: "{\"add\":[\"kw-\(writer)\"]}").0) ?? 0
            statuses.add(writer, status)
        }
        let acknowledged = statuses.all.filter { $0.1 == 200 }.map { "kw-\($0.0)" }
        XCTAssertEqual(acknowledged.count, 50, "every write is acknowledged: \(statuses.all)")
        let file = try String(contentsOfFile: directory + "/shared.overlay.json", encoding: .utf8)
        XCTAssertEqual(acknowledged.filter { !file.contains("\"\($0)\"") }, [], "lost writes in the file")
        for server in servers {
            var missing = acknowledged
            for _ in 0..<60 where !missing.isEmpty {
                let body = try request(server.port, "GET", "/v1/keywords").1
                missing = acknowledged.filter { !body.contains("\"\($0)\"") }
                if !missing.isEmpty { usleep(100_000) }
            }
            XCTAssertEqual(missing, [], "lost writes on the process at port \(server.port)")
        }
    }

    /// Feedback posted one after another while the server is killed with SIGKILL at a random moment: after a
    /// restart on the same files, every acknowledged record is there, once.
    func testKill9LosesNoAcknowledgedFeedback() throws {
        let store = "file:" + directory + "/feedback.overlay.json"
        var acknowledged: [String] = []
        for round in 0..<3 {
            let server = try Server(arguments: ["--model", directory, "--store", store, "--no-verify"], keepLog: false)
            try waitUntilReady(server.port)
            let killAt = Date().addingTimeInterval(Double.random(in: 0.2...0.6))
            var number = 0
            while true {
                let id = "r\(round)-\(number)"
                number += 1
                if Date() >= killAt { kill(server.process.processIdentifier, SIGKILL) }
                guard let (status, _) = try? request(server.port, "POST", "/v1/feedback",
                                                     body: "{\"id\":\"\(id)\",\"name\":\"新物 にんじん\",\"keyword\":\"にんじん\",\"action\":\"accept\"}"),
                      status == 201 else { break }
                acknowledged.append(id)
            }
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
        }
        let server = try Server(arguments: ["--model", directory, "--store", store, "--no-verify"], keepLog: false)
        defer { _ = server.stop() }
        try waitUntilReady(server.port)
        let export = try request(server.port, "GET", "/v1/feedback/export?format=raw").1
        let stored = export.split(separator: "\n").compactMap { line -> String? in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["client_id"] as? String
        }
        XCTAssertGreaterThan(acknowledged.count, 3)
        XCTAssertEqual(Set(acknowledged).subtracting(stored), [], "acknowledged feedback lost")
        XCTAssertEqual(stored.count, Set(stored).count, "a client id stored twice")
    }

    /// Two processes on one file store lease at once: no item is handed to both (no overlap share); the labels made
    /// through either process come out of `store export --format labels`, each id once, and the items flagged
    /// instead (ids ending in 7) out of `store export --format flagged`.
    func testTwoProcessesOnOneFileStoreNeverLeaseTheSameItem() throws {
        let store = "file:" + directory + "/queue.overlay.json"
        let arguments = ["--model", directory, "--store", store, "--no-verify", "--queue-overlap", "0", "--queue-audit", "0"]
        let servers = try (0..<2).map { _ in try Server(arguments: arguments, keepLog: false) }
        defer { for server in servers { _ = server.stop() } }
        for server in servers { try waitUntilReady(server.port) }
        // Names the model is unsure about with this short keyword list, so they are queued, not auto-accepted.
        let names = ["季節の野菜 詰め合わせ", "業務用 食材セット", "おまかせ 産直便", "ご当地 お取り寄せ", "訳あり 箱売り", "朝採れ 直送"]
        let items = (0..<60).map { "{\"id\":\"q-\($0)\",\"name\":\"\(names[$0 % names.count]) \($0)\"}" }.joined(separator: ",")
        let (status, body) = try request(servers[0].port, "POST", "/v1/queue/items", body: "{\"items\":[\(items)]}")
        XCTAssertEqual(status, 200, body)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Int])
        let queued = summary["queued"] ?? 0
        let held = HeldItems()
        let ports = servers.map(\.port)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            while let (status, text) = try? Self.request(ports[index], "POST", "/v1/queue/lease", body: "{\"annotator\":\"a\(index)\",\"n\":3}"),
                  status == 200,
                  let lease = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                  let leased = lease["items"] as? [[String: Any]], !leased.isEmpty, let id = lease["lease"] as? String {
                for item in leased {
                    guard let itemID = item["id"] as? String else { continue }
                    held.add(index, itemID)
                    let decision = itemID.hasSuffix("7") ? "\"action\":\"flag\"" : "\"keywords\":[\"にんじん\"]"
                    _ = try? Self.request(ports[index], "POST", "/v1/queue/decisions",
                                          body: "{\"lease\":\"\(id)\",\"annotator\":\"a\(index)\",\"id\":\"\(itemID)\",\(decision)}")
                }
            }
        }
        let byProcess = [0, 1].map { index in Set(held.all.filter { $0.0 == index }.map(\.1)) }
        XCTAssertGreaterThan(queued, 20, body)
        XCTAssertFalse(byProcess[0].isEmpty || byProcess[1].isEmpty, "both processes leased: \(byProcess)")
        XCTAssertEqual(byProcess[0].intersection(byProcess[1]), [], "items leased through both processes")
        XCTAssertEqual(byProcess[0].count + byProcess[1].count, queued)
        let export = try CLITests.run(["store", "export", "--store", store, "--format", "labels"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let ids = export.stdout.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["id"] as? String
        }
        let flaggedIDs = byProcess[0].union(byProcess[1]).filter { $0.hasSuffix("7") }
        XCTAssertFalse(flaggedIDs.isEmpty, "no queued id ends in 7: \(byProcess)")
        XCTAssertEqual(ids.count, 60 - flaggedIDs.count, export.stdout)
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertTrue(Set(ids).isDisjoint(with: flaggedIDs))
        // --since as the route's ?since=: from the first label's time on, all of them; from the future, none.
        let firstAt = try XCTUnwrap(export.stdout.split(separator: "\n").first.flatMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["at"] as? String
        })
        XCTAssertEqual(try CLITests.run(["store", "export", "--store", store, "--format", "labels", "--since", firstAt]).stdout,
                       export.stdout)
        XCTAssertEqual(try CLITests.run(["store", "export", "--store", store, "--format", "labels",
                                         "--since", "2999-01-01T00:00:00Z"]).stdout, "")
        let badSince = try CLITests.run(["store", "export", "--store", store, "--format", "labels", "--since", "yesterday"])
        XCTAssertEqual(badSince.status, 64, badSince.stderr)
        let flagged = try CLITests.run(["store", "export", "--store", store, "--format", "flagged"])
        XCTAssertEqual(flagged.status, 0, flagged.stderr)
        let lines = flagged.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        XCTAssertEqual(Set(lines.compactMap { $0["id"] as? String }), flaggedIDs, flagged.stdout)
        XCTAssertEqual(lines.count, flaggedIDs.count)
        XCTAssertTrue(lines.allSatisfy { ["a0", "a1"].contains($0["flagged_by"] as? String ?? "") }, flagged.stdout)
    }

    func testPostgresStoreWithoutLibpqIsOneClearLine() throws {
        let outcome = try CLITests.run(["serve", "--port", "0", "--model", directory, "--store", "postgres://kw:secret@127.0.0.1:1/db"],
                                       environment: ProcessInfo.processInfo.environment.merging(["KWSUGGEST_LIBPQ": "/nonexistent/libpq.so.5"]) { $1 })
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: the PostgreSQL store needs libpq (Debian package libpq5"), outcome.stderr)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("secret"), outcome.stderr)
    }

    func testUnknownStoreIsAUsageError() throws {
        let outcome = try CLITests.run(["serve", "--store", "mysql://x"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.contains("use file:PATH or postgres://"), outcome.stderr)
    }

    /// Two replicas on one PostgreSQL: a change through one is served by the other, feedback posted to one is
    /// exported by the other, and /readyz names the store.
    func testTwoReplicasOnPostgres() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip("needs PostgreSQL: run tools/test.sh, or tools/postgres/throwaway.sh run swift test")
        }
        // The second replica takes its password from PGPASSWORD, as libpq does, instead of the URL.
        var environment: [String: String] = [:]
        var bareURL = url
        if let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
           let colon = url[scheme.upperBound..<at].firstIndex(of: ":") {
            environment["PGPASSWORD"] = String(url[url.index(after: colon)..<at])
            bareURL = String(url[..<colon]) + String(url[at...])
        }
        let servers = [try Server(arguments: ["--model", directory, "--store", url, "--no-verify"]),
                       try Server(arguments: ["--model", directory, "--store", bareURL, "--no-verify"], environment: environment)]
        defer { for server in servers { _ = server.stop() } }
        for server in servers { try waitUntilReady(server.port) }
        XCTAssertTrue(try request(servers[1].port, "GET", "/readyz").1.contains(#""store":"ok","store_kind":"postgres""#))
        let keyword = "pg-\(UUID().uuidString.prefix(8))"
        let (status, body) = try request(servers[0].port, "POST", "/v1/keywords", body: "{\"add\":[\"\(keyword)\"]}")
        XCTAssertEqual(status, 200, body)
        XCTAssertTrue(body.contains(keyword), "read-your-writes")
        var seen = false
        for _ in 0..<40 where !seen {
            seen = try request(servers[1].port, "GET", "/v1/keywords").1.contains(keyword)
            if !seen { usleep(50_000) }
        }
        XCTAssertTrue(seen, "the other replica serves the change within 2 s")
        let client = "c-\(UUID().uuidString)"
        let (created, _) = try request(servers[0].port, "POST", "/v1/feedback",
                                       body: "{\"id\":\"\(client)\",\"name\":\"新物 にんじん\",\"keyword\":\"にんじん\",\"action\":\"accept\"}")
        XCTAssertEqual(created, 201)
        let export = try request(servers[1].port, "GET", "/v1/feedback/export?format=raw").1
        XCTAssertTrue(export.contains(client), export)
    }
}

/// (writer, status) pairs collected from many threads.
/// (process, item id) pairs collected from many threads.
final class HeldItems: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, String)] = []
    func add(_ process: Int, _ id: String) {
        lock.lock()
        items.append((process, id))
        lock.unlock()
    }
    var all: [(Int, String)] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

final class StatusList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, Int)] = []
    func add(_ writer: Int, _ status: Int) {
        lock.lock()
        items.append((writer, status))
        lock.unlock()
    }
    var all: [(Int, Int)] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
