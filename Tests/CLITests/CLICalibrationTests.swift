import Foundation
import XCTest

/// `calibrate`, and what a calibrated model directory changes in `suggest` and `eval`: run against a copy of the
/// shipped model (its large files linked, not copied). Nothing here trains an encoder.
final class CLICalibrationTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-calibration" }

    /// A model directory with the shipped model's files linked and its manifest copied, without calibration.json:
    /// the directory a model had before calibration existed (its manifest's checksums no longer list the file).
    private func modelCopy() throws -> String {
        let source = CLITests.packageRoot.appendingPathComponent("models/default").path
        let target = scratch + "/model"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where name != "calibration.json" {
            if name == "manifest.json" {
                let data = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
                var manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                manifest["calibration"] = nil
                if var sums = manifest["file_sha256"] as? [String: Any] {
                    sums["calibration.json"] = nil
                    manifest["file_sha256"] = sums
                }
                try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
                    .write(to: URL(fileURLWithPath: target + "/" + name))
            } else {
                try FileManager.default.createSymbolicLink(atPath: target + "/" + name, withDestinationPath: source + "/" + name)
            }
        }
        return target
    }

    private let heldOut = """
        {"name": "鹿児島県産 さつまいも 紅はるか 2kg", "keywords": ["さつまいも"]}
        {"name": "国産 豚バラ肉 スライス 500g", "keywords": ["豚バラ肉", "豚肉"]}
        {"name": "北海道産 玉ねぎ 10kg", "keywords": ["玉ねぎ"]}
        {"name": "青森県産 サンふじ 5kg", "keywords": ["りんご"]}
        {"name": "高知県産 生姜 1kg", "keywords": ["生姜"]}
        {"name": "送料無料 お徳用 ドロップ缶", "keywords": ["飴"]}

        """

    func testCalibrateWritesTheCalibrationAndSuggestUsesIt() throws {
        let model = try modelCopy()
        let plain = try CLITests.run(["suggest", "--model", model, "--json", "-k", "2", "北海道産 玉ねぎ 10kg", "送料無料"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let plainLines = plain.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        guard plainLines.count == 2 else { return XCTFail("expected two answers: \(plain.stdout)") }
        XCTAssertNil((plainLines[0]?["suggestions"] as? [[String: Any]])?.first?["confidence"], "no calibration, no confidence")
        XCTAssertEqual(plainLines[0]?["auto_accept"] as? Bool, false)
        XCTAssertEqual(plainLines[1]?["reason"] as? String, "no_content_tokens")
        XCTAssertEqual((plainLines[1]?["suggestions"] as? [Any])?.count, 0)

        let data = try file("held-out.jsonl", heldOut)
        let outcome = try CLITests.run(["calibrate", "--model", model, "--data", data])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("calibration: 6 names, "), outcome.stdout)
        let calibration = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: model + "/calibration.json"))) as? [String: Any])
        XCTAssertEqual(calibration["format"] as? String, "kwsuggest-calibration")
        XCTAssertEqual(calibration["format_version"] as? Int, 2)
        XCTAssertEqual(calibration["threshold_rule"] as? String, "wilson-lower-95")
        XCTAssertFalse((calibration["curve"] as? [Any] ?? []).isEmpty)
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: model + "/manifest.json"))) as? [String: Any])
        let version = try XCTUnwrap(manifest["model_version"] as? String)
        XCTAssertNotNil(version.range(of: "-c[0-9a-f]{8}$", options: .regularExpression), version)
        XCTAssertTrue(outcome.stdout.hasSuffix("model version \(version)\n"), outcome.stdout)

        let calibrated = try CLITests.run(["suggest", "--model", model, "--json", "-k", "3", "北海道産 玉ねぎ 10kg"])
        XCTAssertEqual(calibrated.status, 0, calibrated.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(calibrated.stdout.utf8)) as? [String: Any])
        let confidences = (object["suggestions"] as? [[String: Any]] ?? []).compactMap { $0["confidence"] as? Double }
        XCTAssertEqual(confidences.count, 3)
        XCTAssertTrue(confidences.allSatisfy { (0...1).contains($0) }, "\(confidences)")
        XCTAssertNotNil(object["auto_accept"] as? Bool)

        let eval = try CLITests.run(["eval", "--model", model, "--data", data, "--json", "--bootstrap", "50"])
        XCTAssertEqual(eval.status, 0, eval.stderr)
        let last = try XCTUnwrap(eval.stdout.split(separator: "\n").last)
        let metrics = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let measured = try XCTUnwrap(metrics["calibration"] as? [String: Any])
        XCTAssertEqual(measured["names"] as? Int, 6)
        XCTAssertEqual((measured["coverage"] as? [[String: Any]])?.compactMap { $0["precision_target"] as? Double }, [0.95, 0.98, 0.99])
        XCTAssertEqual((measured["bins"] as? [Any])?.count, 10)
        for key in ["ece_top1", "brier_top1", "ece_top5", "brier_top5"] {
            XCTAssertTrue((0...1).contains(measured[key] as? Double ?? -1), key)
        }
    }

    /// The shipped model is calibrated: every suggestion has a confidence, and a clear name is auto-accepted.
    func testTheShippedModelIsCalibrated() throws {
        let outcome = try CLITests.run(["suggest", "--json", "-k", "5", "国産 豚バラ肉 スライス 500g"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let suggestions = try XCTUnwrap(object["suggestions"] as? [[String: Any]])
        XCTAssertEqual(suggestions.compactMap { $0["confidence"] as? Double }.count, 5)
        XCTAssertEqual(suggestions.first?["keyword"] as? String, "豚バラ肉")
        XCTAssertEqual(object["auto_accept"] as? Bool, true, outcome.stdout)
    }

    /// `calibrate --calibration-fraction` refits on the names `train` held out with that split: the shipped
    /// model's calibration split of train.jsonl gives back its calibrator exactly (same names, same weights), and
    /// the manifest records the fraction.
    func testRefittingOnTheTrainingSplitGivesTheShippedCalibrator() throws {
        let model = try modelCopy()
        let shipped = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "models/default/calibration.json", relativeTo: CLITests.packageRoot))) as? [String: Any])
        let outcome = try CLITests.run(["calibrate", "--model", model, "--data", "data/train.jsonl",
                                        "--calibration-fraction", "0.1", "--calibration-split", "both"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let refitted = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: model + "/calibration.json"))) as? [String: Any])
        for key in ["weights", "bias", "mean", "scale", "threshold_rule", "thresholds"] {
            XCTAssertEqual(refitted[key] as? NSObject, shipped[key] as? NSObject, key)
        }
        let fitted = try XCTUnwrap(refitted["fitted_on"] as? [String: Any])
        XCTAssertEqual(fitted["names"] as? Int, (shipped["fitted_on"] as? [String: Any])?["names"] as? Int)
        XCTAssertTrue((fitted["data"] as? String ?? "").hasPrefix("calibration split of train.jsonl (64-bit FNV-1a"), "\(fitted)")
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: model + "/manifest.json"))) as? [String: Any])
        XCTAssertEqual((manifest["calibration"] as? [String: Any])?["fraction"] as? Double, 0.1)
    }

    /// A calibration fitted for another encoder is refused with the file named, not used silently: by the
    /// manifest's checksums, and without them (`--no-verify`) by the encoder hash the calibration records.
    func testACalibrationForAnotherEncoderIsRefused() throws {
        let model = try modelCopy()
        XCTAssertEqual(try CLITests.run(["calibrate", "--model", model, "--data", try file("held-out.jsonl", heldOut)]).status, 0)
        let path = model + "/calibration.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: "\"encoder_sha256\" : \"[0-9a-f]{64}\"", options: .regularExpression))
        text.replaceSubrange(range, with: "\"encoder_sha256\" : \"\(String(repeating: "0", count: 64))\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let checked = try CLITests.run(["suggest", "--model", model, "x"])
        XCTAssertEqual(checked.status, 1)
        XCTAssertTrue(checked.stderr.hasPrefix("Error: \(path): SHA-256 is "), checked.stderr)
        let outcome = try CLITests.run(["suggest", "--model", model, "--no-verify", "x"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: \(path): fitted for encoder.bin 000000000000, not for this directory's "), outcome.stderr)
    }
}
