import Foundation
import XCTest

/// Runs the built `kwsuggest` binary and compares its output and exit status exactly.
final class CLITests: XCTestCase {
    static var binary: URL {
        // The test bundle sits in the build products folder (or is that folder); the binary sits beside it.
        let bundle = Bundle(for: CLITests.self).bundleURL
        let candidates = [bundle.appendingPathComponent("kwsuggest"),
                          bundle.deletingLastPathComponent().appendingPathComponent("kwsuggest"),
                          bundle.appendingPathComponent("debug/kwsuggest")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary in `directory` (default: the repository root, where recipe paths resolve).
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
                    directory: URL? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus,
                       stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testVersion() throws {
        let outcome = try Self.run(["--version"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "0.1.0\n")
    }

    func testUnknownOptionIsUsageError() throws {
        let outcome = try Self.run(["--frobnicate"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertEqual(outcome.stderr, """
            Error: Unknown option '--frobnicate'
            Usage: kwsuggest <subcommand>
              See 'kwsuggest --help' for more information.

            """)
    }

    func testUnknownSubcommandOptionIsUsageError() throws {
        let outcome = try Self.run(["nn", "--bogus"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stderr, """
            Error: Unknown option '--bogus'
            Usage: kwsuggest nn [-k <k>] <file>
              See 'kwsuggest nn --help' for more information.

            """)
    }

    func testRootHelpListsSubcommands() throws {
        let outcome = try Self.run(["--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stdout.hasPrefix("OVERVIEW: Suggests ingredient keywords for grocery product names.\n\nUSAGE: kwsuggest <subcommand>\n"))
        for name in ["serve", "suggest", "eval", "train", "calibrate", "tokenize", "print-word-vectors", "nn", "vectors", "bench"] {
            XCTAssertTrue(outcome.stdout.contains("\n  \(name) "), "help lacks \(name)")
        }
    }
}

/// Help is generated from the option declarations, so it cannot drift from what the scanner accepts.
final class CLIHelpTests: XCTestCase {
    func testNearestNeighboursHelpIsExact() throws {
        let outcome = try CLITests.run(["nn", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Prints the nearest neighbours of each word read from standard input.

            For each word read from standard input (split at ASCII white space) prints 'Query word? WORD'
            and then 'neighbour similarity' lines, best first, by cosine similarity. For .kwv files a
            neighbour is a row, named by its first key. A word without a vector prints a note instead.

            USAGE: kwsuggest nn [-k <k>] <file>

            ARGUMENTS:
              <file>                  A fastText .bin or .vec file, or a .kwv file.

            OPTIONS:
              -k, --k <k>             Neighbours per word (default: 10).
              -h, --help              Show help information.

            """)
    }

    func testServeHelpIsExact() throws {
        let outcome = try CLITests.run(["serve", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Serves the suggestion API and the annotation workbench over HTTP.

            Listens first and prints 'listening on http://HOST:PORT', then opens the store and loads the model in
            the background, logging the model directory it chose; /readyz answers 503 until both are done (a
            model file whose SHA-256 differs from manifest.json stops it with exit 1). Keyword changes
            (POST /v1/keywords) and feedback (POST /v1/feedback) are durable in the store before they are acknowledged. The file store
            locks a file beside the overlay, so processes on one machine may share it; changes by other
            processes are picked up within 1 s (SIGHUP reloads at once). For replicas on several machines use
            postgres://user@host:5432/db (needs libpq5; password from the URL, PGPASSWORD or PGPASSFILE).
            When the store's model registry has a live version (kwsuggest model promote), that version is
            served and --model only until one is live; a promotion is loaded beside the served model and swapped
            in within 5 s, and a version that fails to load leaves the served one (the log, /readyz and
            /metrics say so).
            SIGTERM or SIGINT stops accepting, finishes in-flight requests (up to 10 s) and exits 0.
            Environment: PORT, KWSUGGEST_MODEL, KWSUGGEST_STORE, KWSUGGEST_CORS_ORIGINS, KWSUGGEST_ADMIN_TOKEN
            (when set, keyword changes, feedback and its export need 'Authorization: Bearer <token>'; surrounding white space
            is trimmed). Without a token writes are open: a warning on a loopback address, and a refusal to start
            on any other address unless --allow-open-writes is given. Open writes and the export answer only
            requests whose Host is localhost, 127.0.0.1, [::1] or an --allowed-host name, with any port (others
            get 403 host_not_allowed). With a calibrated model (calibration.json)
            every suggestion carries its confidence, and an answer is marked auto_accept when the top one clears
            the threshold the calibration curve gives for --auto-accept-precision (by the file's threshold_rule:
            the lowest threshold whose one-sided 95 % lower bound of top-1 precision on the calibration names
            reaches it); a precision the curve never reaches auto-accepts nothing.
            The annotation queue (/v1/queue/…, /v1/labels/export) lives in the same store; every process sharing
            it must run with the same --queue-overlap and --queue-audit, since an item's routing is decided from
            its id with them. The queue's model labels an arriving item only when the team's labels on this
            model's suggestions support --auto-accept-precision at the item's confidence (--auto-accept-rule
            evidence, see docs/queue.md); every serve rebuilds that rule from the store every 2 s. A name
            the team decided before (one with the same name key) is answered from the decision memory first, on
            every serve within a second, and labelled by it in the queue (docs/memory.md).
            With --annotators, a queue request needs the admin token or an annotator's token;
            an annotator's token acts only as that annotator (a body naming another gets 403 wrong_annotator,
            so undo reverts only the caller's own decisions), while the admin token keeps every right. One
            annotator holds at most --lease-cap items: a lease past it gets only what fits.

            USAGE: kwsuggest serve [--host <host>] [--port <port>] [--model <dir>] [--store <store>] [--threads <n>] [--cors-origin <origin> ...] [--overlay <file>] [--access-log <mode>] [--no-verify] [--auto-accept-precision <p>] [--auto-accept-rule <rule>] [--keyword-categories <file>] [--queue-overlap <share>] [--queue-audit <share>] [--annotators <file>] [--lease-cap <n>] [--allow-open-writes] [--allowed-host <name> ...]

            OPTIONS:
              --host <host>           Address to bind; '::' for IPv4+IPv6 (default: 127.0.0.1).
              --port <port>           TCP port; 0 picks a free one (default: $PORT or 8080).
              --model <dir>           Model directory (default: $KWSUGGEST_MODEL, else the first that exists of ./models/default, models/default in the executable's directory or the nearest one above it, and <prefix>/share/kwsuggest/models/default, <prefix> being the executable's directory's parent).
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<model dir>/keywords.overlay.json).
              --threads <n>           Event-loop threads (default: one per CPU).
              --cors-origin <origin>  Origin allowed to call the API from a browser; repeatable, '*' for any (default: $KWSUGGEST_CORS_ORIGINS).
              --overlay <file>        Same as --store file:<file>.
              --access-log <mode>     Access-log lines on stderr: on for every request, errors for status 400 and above, or off (default: on).
              --no-verify             Skip checking the model files against the SHA-256 checksums in manifest.json.
              --auto-accept-precision <p>
                                      Top-1 precision auto-accepted answers must reach: the calibration curve's threshold for it, and the target of the queue's auto-accept rule (default: 0.98).
              --auto-accept-rule <rule>
                                      What lets the model label a queue item: evidence (above the calibration threshold, the team's decisions on this model support --auto-accept-precision at the item's confidence) or calibration (the calibration threshold alone) (default: evidence).
              --keyword-categories <file>
                                      keyword<TAB>category lines the auto-accept rule pools evidence by (the served order reads the model's own file) (default: keyword-categories.tsv of --model, when it has one).
              --queue-overlap <share> Share of queued items labelled by two annotators (a third when they disagree) (default: 0.05).
              --queue-audit <share>   Share of auto-accepted queue items also queued for a person to check (default: 0.05).
              --annotators <file>     Annotators' tokens: lines of 'name<TAB>sha256 hex of the token'; each token acts on the queue as its annotator only.
              --lease-cap <n>         Most queue items one annotator holds at once, over all their leases (default: 100).
              --allow-open-writes     Serve keyword writes without KWSUGGEST_ADMIN_TOKEN on a non-loopback address.
              --allowed-host <name>   Host name (any port) that may send writes while they are open, beyond localhost, 127.0.0.1 and [::1]; repeatable.
              -h, --help              Show help information.

            """)
    }

    /// Every command that takes --model states the same search order for the model directory.
    func testEveryModelOptionStatesTheSearchOrder() throws {
        let order = "(default: $KWSUGGEST_MODEL, else the first that exists of ./models/default, models/default in "
            + "the executable's directory or the nearest one above it, and <prefix>/share/kwsuggest/models/default, "
            + "<prefix> being the executable's directory's parent)."
        let expected = [
            "serve": "Model directory ", "store": "Model directory ", "suggest": "Model directory ",
            "eval": "Model directory ", "train": "Base model directory: vectors, lexicon, keywords ",
            "calibrate": "Model directory ", "tokenize": "Model directory ", "bench": "Model directory ",
        ]
        let root = try CLITests.run(["--help"]).stdout
        for (name, help) in expected {
            XCTAssertTrue(root.contains("\n  \(name) "), "no subcommand \(name)")
            let line = try CLITests.run([name, "--help"]).stdout.split(separator: "\n")
                .first { $0.hasPrefix("  --model <dir>") }.map(String.init)
            XCTAssertEqual(line, "  --model <dir>           " + help + order, name)
        }
    }

    /// Every option in a subcommand's OPTIONS list also appears in its USAGE line, and the reverse.
    func testEveryUsageLineNamesEveryOption() throws {
        let root = try CLITests.run(["--help"])
        let subcommands = root.stdout.components(separatedBy: "SUBCOMMANDS:\n").last?
            .split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("  See") else { return nil }
                return line.split(separator: " ").first.map(String.init)
            } ?? []
        XCTAssertGreaterThanOrEqual(subcommands.count, 8)
        for name in subcommands {
            let help = try CLITests.run([name, "--help"]).stdout
            let usage = help.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }.map(String.init) ?? ""
            let listed = help.components(separatedBy: "OPTIONS:\n").last?.split(separator: "\n")
                .compactMap { line -> String? in
                    let label = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
                    return label?.hasPrefix("-") == true ? label?.trimmingCharacters(in: CharacterSet(charactersIn: ",")) : nil
                } ?? []
            for option in listed where option != "-h" {
                XCTAssertTrue(usage.contains("[\(option)") || usage.contains(" \(option) "), "\(name): usage lacks \(option): \(usage)")
            }
            let inUsage = usage.split(separator: " ").filter { $0.hasPrefix("[-") || $0.hasPrefix("-") }
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
            for option in inUsage {
                XCTAssertTrue(help.contains("  \(option)") || help.contains(", \(option)"), "\(name): \(option) has no help line")
            }
        }
    }
}
