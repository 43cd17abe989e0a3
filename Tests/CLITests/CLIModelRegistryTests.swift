import Foundation
import XCTest

/// `kwsuggest model …` against the built binary, a file store in a scratch folder and copies of the shipped model.
final class CLIModelRegistryTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-registry" }

    /// A copy of the shipped model whose manifest names `version`.
    private func model(_ version: String) throws -> String {
        let directory = scratch + "/" + version
        try FileManager.default.copyItem(atPath: CLITests.packageRoot.appendingPathComponent("models/default").path, toPath: directory)
        let url = URL(fileURLWithPath: directory + "/manifest.json")
        var manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        manifest["model_version"] = version
        try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys]).write(to: url)
        return directory
    }

    private var store: String { "file:" + scratch + "/store/keywords.overlay.json" }

    func testPushListPromoteRollbackRemove() throws {
        try FileManager.default.createDirectory(atPath: scratch + "/store", withIntermediateDirectories: true)
        let a = try model("cli-a"), b = try model("cli-b")
        let pushed = try CLITests.run(["model", "push", a, "--store", store])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(pushed.stdout.split(separator: "\n").last, "cli-a", "the version is the last line")
        let json = try CLITests.run(["model", "push", b, "--store", store, "--json"])
        XCTAssertEqual(json.stdout, "{\"version\":\"cli-b\",\"already_stored\":false,\"removed\":[],\"repaired\":[]}\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch + "/store/keywords.overlay.registry/versions/cli-b/vectors.kwv"))

        let gate = try file("gate.jsonl", "{\"name\":\"淡路島産 にんじん 3本\",\"keywords\":[\"にんじん\"]}\n{\"name\":\"北海道産 玉ねぎ 10kg\",\"keywords\":[\"玉ねぎ\"]}\n")
        let promoted = try CLITests.run(["model", "promote", "cli-a", "--store", store, "--gate", gate])
        XCTAssertEqual(promoted.status, 0, promoted.stderr)
        XCTAssertTrue(promoted.stdout.hasPrefix("gate.jsonl  n 2  Acc@1 1.0000 → 1.0000 (+0.0000, noise ±0.0000)"), promoted.stdout)
        XCTAssertTrue(promoted.stdout.hasSuffix("promoted cli-a (was none: the --model of each serve)\n"), promoted.stdout)
        let forced = try CLITests.run(["model", "promote", "cli-b", "--store", store, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(forced.stderr.contains("\"event\":\"model_promote_forced\""), forced.stderr)
        XCTAssertEqual(forced.stdout, "promoted cli-b (was cli-a), gate skipped (--force)\n")

        let list = try CLITests.run(["model", "list", "--store", store, "--json"])
        let catalog = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        let head = try XCTUnwrap(catalog["head"] as? [String: Any])
        XCTAssertEqual(head["live"] as? String, "cli-b")
        XCTAssertEqual(head["previous"] as? [String], ["cli-a"])
        let text = try CLITests.run(["model", "list", "--store", store]).stdout
        XCTAssertTrue(text.contains("cli-b  [live]  parent -  created "), text)
        XCTAssertTrue(text.contains("gate forced"), text)
        XCTAssertTrue(text.contains("cli-a  [previous]"), text)

        let removeLive = try CLITests.run(["model", "rm", "cli-b", "--store", store])
        XCTAssertEqual(removeLive.status, 1)
        XCTAssertEqual(removeLive.stderr, "Error: cli-b is live: promote another version or roll back first\n")
        XCTAssertEqual(try CLITests.run(["model", "rollback", "--store", store]).stdout, "rolled back from cli-b to cli-a\n")
        XCTAssertEqual(try CLITests.run(["model", "rollback", "--store", store]).stdout,
                       "rolled back from cli-a to the --model of each serve (no version is live)\n")
        XCTAssertEqual(try CLITests.run(["model", "rm", "cli-b", "--store", store]).stdout, "removed cli-b\n")
        XCTAssertEqual(try CLITests.run(["model", "shadow", "cli-a", "--store", store, "--fraction", "0.25"]).stdout,
                       "shadow: cli-a at fraction 0.25\n")
        XCTAssertEqual(try CLITests.run(["model", "shadow", "--off", "--store", store]).stdout, "shadow off\n")
    }

    func testADirectoryWithAFlippedByteIsRefusedNamingTheFile() throws {
        let damaged = try model("cli-damaged")
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: damaged + "/lexicon.kwlex"))
        try handle.seek(toOffset: 100)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 100)
        handle.write(Data([byte ^ 0x80]))
        try handle.close()
        let outcome = try CLITests.run(["model", "push", damaged, "--store", store])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: \(damaged)/lexicon.kwlex: SHA-256 is "), outcome.stderr)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/store/keywords.overlay.registry/versions"))
    }

    /// A stored blob damaged in place is not trusted by its name: the next push that holds the file replaces it
    /// (and says so), and the versions linked to it get the good bytes.
    func testAPushRepairsADamagedStoredFile() throws {
        try FileManager.default.createDirectory(atPath: scratch + "/store", withIntermediateDirectories: true)
        let a = try model("cli-a"), b = try model("cli-b")
        XCTAssertEqual(try CLITests.run(["model", "push", a, "--store", store]).status, 0)
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a + "/manifest.json"))) as? [String: Any])
        let sha = try XCTUnwrap((manifest["file_sha256"] as? [String: String])?["keywords.txt"])
        let registry = scratch + "/store/keywords.overlay.registry"
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: registry + "/blobs/" + sha))
        try handle.seek(toOffset: 10)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 10)
        handle.write(Data([byte ^ 0x01]))
        try handle.close()
        let good = try Data(contentsOf: URL(fileURLWithPath: a + "/keywords.txt"))
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: registry + "/versions/cli-a/keywords.txt")), good)

        let pushed = try CLITests.run(["model", "push", b, "--store", store])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertTrue(pushed.stdout.hasPrefix("repaired the stored keywords.txt: its bytes no longer had their SHA-256; "
            + "replaced by the pushed copy\nstored in "), pushed.stdout)
        XCTAssertTrue(pushed.stderr.contains("\"event\":\"model_file_repaired\""), pushed.stderr)
        for path in ["/blobs/" + sha, "/versions/cli-a/keywords.txt", "/versions/cli-b/keywords.txt"] {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: registry + path)), good, path)
        }
        let again = try CLITests.run(["model", "push", b, "--store", store, "--json"])
        XCTAssertEqual(again.stdout, "{\"version\":\"cli-b\",\"already_stored\":true,\"removed\":[],\"repaired\":[]}\n")
    }

    /// The default gate set is the candidate recipe's dev file, whose path resolves against the working
    /// directory: run elsewhere, the error says so, as train --recipe's does.
    func testPromoteOutsideTheRepositoryRootSaysWhereRecipePathsResolve() throws {
        try FileManager.default.createDirectory(atPath: scratch + "/store", withIntermediateDirectories: true)
        XCTAssertEqual(try CLITests.run(["model", "push", try model("cli-a"), "--store", store]).status, 0)
        let shipped = CLITests.packageRoot.appendingPathComponent("models/default").path
        let outcome = try CLITests.run(["model", "promote", "cli-a", "--store", store, "--model", shipped],
                                       directory: URL(fileURLWithPath: scratch))
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "Error: data/dev.jsonl: the recipe names this file, which does not exist here "
            + "(recipe paths resolve against the working directory: run from the repository root)\n")
        XCTAssertEqual(outcome.stdout, "")
    }

    func testUsageErrors() throws {
        let unknown = try CLITests.run(["model", "frobnicate"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.stderr, """
            Error: Unknown subcommand 'frobnicate'
            Usage: kwsuggest model <subcommand>
              See 'kwsuggest model --help' for more information.

            """)
        let missing = try CLITests.run(["model", "promote", "--store", store])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.hasPrefix("Error: Missing expected argument '<version>'\n"), missing.stderr)
        let recipeAndData = try CLITests.run(["train", "--recipe", "models/default", "--data", "x.jsonl", "--out", scratch + "/o"])
        XCTAssertEqual(recipeAndData.status, 64)
        XCTAssertTrue(recipeAndData.stderr.hasPrefix("Error: --recipe repeats the recorded data and options; '--data' cannot be combined with it\n"),
                      recipeAndData.stderr)
        let feedbackAlone = try CLITests.run(["train", "--feedback", store, "--out", scratch + "/o"])
        XCTAssertTrue(feedbackAlone.stderr.hasPrefix("Error: --feedback needs --recipe\n"), feedbackAlone.stderr)
        // The two options that shape the feedback: each needs --feedback, and each refuses 0.
        for (flag, value) in [("--feedback-weight", "2"), ("--feedback-cap", "5")] {
            let alone = try CLITests.run(["train", "--recipe", "models/default", flag, value, "--out", scratch + "/o"])
            XCTAssertEqual(alone.status, 64)
            XCTAssertTrue(alone.stderr.hasPrefix("Error: \(flag) needs --feedback\n"), alone.stderr)
            let zero = try CLITests.run(["train", "--recipe", "models/default", "--feedback", store, flag, "0",
                                         "--out", scratch + "/o"])
            XCTAssertEqual(zero.status, 64)
            XCTAssertTrue(zero.stderr.contains("'\(flag) <n>'"), zero.stderr)
        }
    }

    func testModelGroupHelp() throws {
        let outcome = try CLITests.run(["model", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Pushes, lists, promotes and rolls back model versions in the store's registry.

            The registry lives in the store: for file:PATH a folder beside the overlay file (PATH without .json,
            plus .registry; run-time data, ignored by git), for PostgreSQL tables of the database, files
            included. A version is the manifest's model_version. Every serve on the store serves the live
            version within 5 s of a promotion, and its --model until a version is live.

            USAGE: kwsuggest model <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              push                    Checks a model directory and stores it in the registry.
              list                    Lists the stored versions: parent, created, size, gate figures, and which one is live.
              promote                 Makes a stored version live, if the gate passes.
              rollback                Makes the previous live version live again.
              rm                      Removes a stored version (not the live one, its predecessor or the shadow).
              shadow                  Puts a stored version in shadow beside the live model, or ends the shadow.

              See 'kwsuggest model <subcommand> --help' for detailed help.

            """)
    }

    func testModelPushHelp() throws {
        let outcome = try CLITests.run(["model", "push", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Checks a model directory and stores it in the registry.

            Every file the manifest lists is checked against its SHA-256, the files a model needs must be there,
            and the model must load; a damaged or incomplete directory is refused, naming the file. The version
            (the manifest's model_version) is printed on the last line. A file the registry holds already is
            checked against its SHA-256 too: a damaged stored copy is replaced by the pushed one (and named).
            Pushing a version that is stored already changes nothing else.

            USAGE: kwsuggest model push [--store <store>] [--keep <n>] [--json] <dir>

            ARGUMENTS:
              <dir>                   The model directory (with manifest.json).

            OPTIONS:
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json).
              --keep <n>              Versions to keep, newest first, besides the live one, its predecessor and the shadow (default: 5).
              --json                  Print {"version": …} instead of text.
              -h, --help              Show help information.

            """)
    }

    func testModelListHelp() throws {
        let outcome = try CLITests.run(["model", "list", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Lists the stored versions: parent, created, size, gate figures, and which one is live.

            One line per version, oldest first: the version, its state (live, previous: what rollback returns
            to, shadow), parent, created (UTC), size in MB and the Acc@1 of each gate set it was promoted on
            (live → candidate; forced when the gate was skipped).

            USAGE: kwsuggest model list [--store <store>] [--json]

            OPTIONS:
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json).
              --json                  Print the registry as one JSON object.
              -h, --help              Show help information.

            """)
    }

    func testModelPromoteHelp() throws {
        let outcome = try CLITests.run(["model", "promote", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Makes a stored version live, if the gate passes.

            The gate ranks each set with the live model and the candidate, each with its own keyword list and the
            store's keyword changes, and compares Acc@1 name by name. It refuses (exit 1) when the candidate is
            worse on any set by more than twice the standard error of the paired difference (the noise). The
            sets: each --gate file (default: the dev file of the candidate's recipe), and 'feedback': the
            store's decisions after the last one the candidate trained on, resolved as train --feedback
            resolves them. On each set it also compares calibration: what each model's calibration would
            auto-accept at --auto-accept-precision (precision and coverage) and the top suggestion's ECE; it
            refuses a candidate whose precision there is below the target and below the live model's by more than
            the noise (twice the standard error of the difference), or whose ECE is worse by more than the noise
            (twice the bootstrap standard deviation of the paired difference). The comparison is printed and
            stored with the version. Serves swap to the new version within 5 s.

            USAGE: kwsuggest model promote [--store <store>] [--gate <file> ...] [--force] [--model <dir>] [--newest <n>] [--auto-accept-precision <p>] <version>

            ARGUMENTS:
              <version>               A version from 'kwsuggest model list'.

            OPTIONS:
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json).
              --gate <file>           Labelled names (JSON lines) to compare on; repeatable (default: the candidate recipe's dev file).
              --force                 Skip the gate (the store and the log record that it was skipped).
              --model <dir>           The model serves use while no version is live; compared against then (default: $KWSUGGEST_MODEL, else the first that exists of ./models/default, models/default in the executable's directory or the nearest one above it, and <prefix>/share/kwsuggest/models/default, <prefix> being the executable's directory's parent).
              --newest <n>            Newest decided names the candidate did not train on, added as the gate set 'feedback' (default: 2000).
              --auto-accept-precision <p>
                                      The precision the calibration check reads each model's auto-accept threshold for (default: 0.98).
              -h, --help              Show help information.

            """)
    }

    func testModelRollbackHelp() throws {
        let outcome = try CLITests.run(["model", "rollback", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Makes the previous live version live again.

            After the first promotion there is no previous version: rollback then leaves no version live, and
            every serve returns to the model of its --model. Serves swap within 5 s.

            USAGE: kwsuggest model rollback [--store <store>]

            OPTIONS:
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json).
              -h, --help              Show help information.

            """)
    }

    func testModelRemoveHelp() throws {
        let outcome = try CLITests.run(["model", "rm", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Removes a stored version (not the live one, its predecessor or the shadow).

            USAGE: kwsuggest model rm [--store <store>] <version>

            ARGUMENTS:
              <version>               A version from 'kwsuggest model list'.

            OPTIONS:
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json).
              -h, --help              Show help information.

            """)
    }

    func testModelShadowHelp() throws {
        let outcome = try CLITests.run(["model", "shadow", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Puts a stored version in shadow beside the live model, or ends the shadow.

            Every serve loads the candidate beside the live model and scores the given share of suggest requests
            with it after answering, on a background thread with a bounded queue (requests it cannot keep up
            with are not scored, and counted). Metrics: kwsuggest_shadow_requests_total,
            kwsuggest_shadow_top1_agreements_total, and for feedback, kwsuggest_shadow_feedback_top1_total
            {model="live"|"shadow"}: how often the annotator's keyword was each model's top suggestion; the
            same decisions give each model's calibration (what it would auto-accept, how often that was right, its
            ECE, since the shadow version last changed) in /readyz's shadow.calibration and in the gauges
            kwsuggest_shadow_feedback_scored, kwsuggest_shadow_feedback_auto_accepted,
            kwsuggest_shadow_feedback_auto_accepted_right and kwsuggest_shadow_feedback_ece.

            USAGE: kwsuggest model shadow [--store <store>] [--fraction <f>] [--off] [<version>]

            ARGUMENTS:
              [<version>]             A version from 'kwsuggest model list' (none with --off).

            OPTIONS:
              --store <store>         file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json).
              --fraction <f>          Share of suggest requests the candidate also scores (default: 0.1).
              --off                   End the shadow.
              -h, --help              Show help information.

            """)
    }
}
