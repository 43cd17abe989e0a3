// Which store a process uses, as given on the command line (`--store`) or in KWSUGGEST_STORE.

/// `file:PATH` (the overlay file; feedback and the lock file beside it) or a PostgreSQL URL.
public enum StoreLocation: Sendable, Equatable {
    case file(String)
    case postgres(String)

    /// Parses `file:PATH`, `postgres://…` or `postgresql://…`. The error is a sentence for the user.
    public init(parsing text: String) throws(KeywordStoreError) {
        if text.hasPrefix("file:") {
            let path = String(text.dropFirst("file:".count))
            guard !path.isEmpty else { throw .failed("the store 'file:' needs a path, as in file:models/default/keywords.overlay.json") }
            self = .file(path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(text)
        } else {
            throw .failed("unknown store '\(StoreLocation.masked(text).prefix(100))': use file:PATH or postgres://user@host:5432/db")
        }
    }

    /// For logs: the path, or the URL with its password masked.
    public var displayName: String {
        switch self {
        case .file(let path): return "file:\(path)"
        case .postgres(let url): return StoreLocation.masked(url)
        }
    }

    /// `url` with its password (user info or `password=` parameter) masked, for logs.
    public static func masked(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") {
            let userInfo = text[scheme.upperBound..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        if let range = text.range(of: "password=") {
            let end = text[range.upperBound...].firstIndex(where: { $0 == "&" || $0 == " " }) ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return text
    }
}
