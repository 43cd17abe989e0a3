import Foundation
import XCTest

/// `kwsuggest store`: its help, training data out of a store, and the list's size rule on import.
final class CLIStoreExportTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-store-export" }

    private let archive = """
        {"type":"keywords","added":["ごぼう"],"removed":[]}
        {"type":"feedback","id":3,"received_at":"2026-01-02T03:04:05.000Z","name":"新物 にんじん","keyword":"にんじん","action":"accept","shown":["にんじん"],"annotator":"aiko"}
        {"type":"feedback","id":5,"received_at":"2026-01-02T03:04:06.000Z","name":"豚バラ","keyword":"牛肉","action":"reject","shown":["牛肉"]}
        {"type":"feedback","id":8,"received_at":"2026-01-02T03:04:07.000Z","name":"国産 豚バラ \\"薄切り\\"","keyword":"豚肉","action":"correct","shown":["牛肉"]}

        """

    func testStoreHelpIsExact() throws {
        let outcome = try CLITests.run(["store", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Exports or imports a store's keyword changes and feedback.

            The archive is JSON lines: {"type":"keywords","added":[...],"removed":[...]}, then one
            {"type":"feedback",...} line per feedback record, with its id and time. Import replaces the store's
            keyword changes and adds the feedback records whose ids (and client ids) it does not hold yet; a bad
            line (longer than 64 MiB, not valid JSON, a bad field) is reported with its number and nothing is
            written; so is an archive whose keyword changes would make the model's list (--model) longer than 50000
            keywords. To move to PostgreSQL:
              kwsuggest store export --store file:models/default/keywords.overlay.json --file backup.jsonl
              kwsuggest store import --store postgres://user@host:5432/db --file backup.jsonl
            With --format training, export writes training data instead: one {"name","keywords","source"} line per
            accepted or corrected feedback record, oldest first, the lines train --data and eval --data read
            (records of annotation-queue decisions that were undone are left out). With --format labels, one line
            per labelled item of the annotation queue with its current label:
            {"id","name","keywords","decided_by","annotator","model","at"}, in the order the labels were made (what
            GET /v1/labels/export streams). With --format flagged, one line per flagged item:
            {"id","name","flagged_by","at","suggestions"}, in the order they were flagged (GET /v1/queue/flagged).

            USAGE: kwsuggest store [--model <dir>] [--store <store>] [--file <file>] [--format <format>] [--since <time>] <action>

            ARGUMENTS:
              <action>                export or import.

            OPTIONS:
              --model <dir>           Model directory (default: $KWSUGGEST_MODEL, else the first that exists of ./models/default, models/default in the executable's directory or the nearest one above it, and <prefix>/share/kwsuggest/models/default, <prefix> being the executable's directory's parent).
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<model dir>/keywords.overlay.json).
              --file <file>           Archive to write or read (default: standard output or input).
              --format <format>       What export writes: archive (the whole store, for import), training (labelled names, for train --data), labels (the queue's labels) or flagged (the queue's flagged items) (default: archive).
              --since <time>          With --format labels or flagged: only entries made at or after this UTC time (2026-01-31T12:00:00Z), as the routes' ?since= does.
              -h, --help              Show help information.

            """)
    }

    /// Accepts and corrections become labelled names, rejections nothing: the lines `GET /v1/feedback/export`
    /// sends by default, readable by `train --data`.
    func testTrainingExportWritesLabelledNames() throws {
        let store = "file:" + scratch + "/keywords.overlay.json"
        let imported = try CLITests.run(["store", "import", "--store", store], stdin: archive)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let exported = try CLITests.run(["store", "export", "--store", store, "--format", "training"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(exported.stdout, """
            {"name":"新物 にんじん","keywords":["にんじん"],"source":"feedback"}
            {"name":"国産 豚バラ \\"薄切り\\"","keywords":["豚肉"],"source":"feedback"}

            """)
        let file = scratch + "/training.jsonl"
        let toFile = try CLITests.run(["store", "export", "--store", store, "--format=training", "--file", file])
        XCTAssertEqual(toFile.status, 0, toFile.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), exported.stdout)
        let wrong = try CLITests.run(["store", "import", "--store", store, "--format", "training"], stdin: archive)
        XCTAssertEqual(wrong.status, 64, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("--format applies to export only"), wrong.stderr)
    }

    /// The model's 1,920 keywords plus 48,080 added are 50,000 and are imported; one more is refused, and the
    /// store is left as it was.
    func testImportPastTheKeywordCapIsRefused() throws {
        let base = try String(contentsOf: CLITests.packageRoot.appendingPathComponent("models/default/keywords.txt"), encoding: .utf8)
        let modelCount = Set(base.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }).count
        XCTAssertEqual(modelCount, 1_920)
        func archive(adding count: Int) -> String {
            let added = (0..<count).map { "\"cap-\($0)\"" }.joined(separator: ",")
            return "{\"type\":\"keywords\",\"added\":[\(added)],\"removed\":[]}\n"
        }
        let store = "file:" + scratch + "/keywords.overlay.json"
        let refused = try CLITests.run(["store", "import", "--store", store], stdin: archive(adding: 50_000 - modelCount + 1))
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("<stdin>: the list would hold 50001 keywords; at most 50000 are served"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/keywords.overlay.json"), "nothing is written")

        let accepted = try CLITests.run(["store", "import", "--store", store], stdin: archive(adding: 50_000 - modelCount))
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertTrue(accepted.stderr.contains("48080 added and 0 removed keywords"), accepted.stderr)
    }
}
