// The annotation workbench: a page, its script modules and its styles, each a file under Workbench/ compiled into the
// binary (SwiftPM's embedInCode), so the static binary and the image stay one file with no external assets.
import HTTPCore

/// The workbench's files and the headers they are served with.
enum WorkbenchAssets {
    /// One file of the workbench: where it is served and what it is.
    struct Asset: Sendable {
        var path: String
        var contentType: String
        var body: [UInt8]
    }

    static let page = Asset(path: "/", contentType: "text/html; charset=utf-8", body: PackageResources.workbench_html)
    static let script = Asset(path: "/workbench.js", contentType: "text/javascript; charset=utf-8",
                              body: PackageResources.workbench_js)
    /// The views and the team queue (annotate, review by keyword, stats).
    static let queueScript = Asset(path: "/queue.js", contentType: "text/javascript; charset=utf-8",
                                   body: PackageResources.queue_js)
    /// What both scripts import: the helpers, the one way a request is made, and the view shown.
    static let commonScript = Asset(path: "/common.js", contentType: "text/javascript; charset=utf-8",
                                    body: PackageResources.common_js)
    static let styles = Asset(path: "/workbench.css", contentType: "text/css; charset=utf-8",
                              body: PackageResources.workbench_css)
    static let all = [page, script, queueScript, commonScript, styles]

    /// The page runs only its own script and styles (no inline code), may not be framed by another site, and
    /// its files are never sniffed as another type.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    /// The answer for `asset`: revalidated on every load (`no-cache`), so a new release's page and script arrive
    /// together.
    static func response(_ asset: Asset) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", asset.contentType)
        headers.add("Cache-Control", "no-cache")
        headers.add("Content-Security-Policy", contentSecurityPolicy)
        headers.add("X-Frame-Options", "DENY")
        headers.add("X-Content-Type-Options", "nosniff")
        return HTTPResponse(status: .ok, headers: headers, body: asset.body)
    }
}
