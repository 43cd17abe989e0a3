import Foundation
import XCTest

/// The workbench's HTML and JavaScript live in their own files under Sources/ (which linters and formatters can
/// read, and which let the page's CSP refuse inline code): no Swift file under Sources/ holds a script tag or an
/// event listener, comments included.
final class PageAssetTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What marks HTML or JavaScript, matched case-insensitively.
    static let markers = ["<script", "addEventListener("]

    /// `file:line: marker` for every marker in `text`.
    static func markerUses(in text: String, file: String) -> [String] {
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for marker in markers where line.range(of: marker, options: .caseInsensitive) != nil {
                found.append("\(file):\(number + 1): \(marker)")
            }
        }
        return found
    }

    func testTheScanFindsMarkersInCodeAndComments() {
        let sample = "let page = \"<SCRIPT src=x>\"\n// button.addEventListener(\"click\", f)\nlet ok = 1\n"
        XCTAssertEqual(Self.markerUses(in: sample, file: "x.swift"), ["x.swift:1: <script", "x.swift:2: addEventListener("])
    }

    func testNoSwiftFileUnderSourcesHoldsHTMLOrJavaScript() throws {
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return XCTFail("cannot list \(sources.path)")
        }
        var scanned = 0
        var found: [String] = []
        for case let file as URL in walker where file.pathExtension == "swift" {
            scanned += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            found += Self.markerUses(in: text, file: String(file.path.dropFirst(root.path.count + 1)))
        }
        XCTAssertGreaterThan(scanned, 50, "too few Swift files found under \(sources.path)")
        XCTAssertEqual(found, [])
    }

    func testTheWorkbenchScriptIsAFileOfItsOwn() throws {
        let folder = sources("KeywordHTTP/Workbench")
        let page = try String(contentsOf: folder.appendingPathComponent("workbench.html"), encoding: .utf8)
        let script = try String(contentsOf: folder.appendingPathComponent("workbench.js"), encoding: .utf8)
        XCTAssertTrue(page.contains(#"<script type="module" src="/workbench.js"></script>"#))
        XCTAssertTrue(script.contains("addEventListener("))
    }

    private func sources(_ path: String) -> URL { root.appendingPathComponent("Sources").appendingPathComponent(path) }
}
