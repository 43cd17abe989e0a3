// Who may change the keyword list: the admin token from the environment, and the rule that an
// address other hosts can reach never serves open writes by accident.
import APICore
import Foundation
import KeywordHTTP
import Platform

/// The admin token and the open-writes rule `serve` applies before it listens.
public enum WritePolicy {
    /// The token from `KWSUGGEST_ADMIN_TOKEN`: surrounding white space (a trailing newline from `$(cat file)`)
    /// is trimmed, since no token sent in a header could ever match it; white space or control characters
    /// inside, or a value that is blank, is an error. nil when the variable is unset or empty.
    public static func token(fromEnvironment value: String?) throws(ServiceError) -> String? {
        guard let value, !value.isEmpty else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw ServiceError(message: "KWSUGGEST_ADMIN_TOKEN is blank; unset it or give a token")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.isControlCharacter }) else {
            throw ServiceError(message: "KWSUGGEST_ADMIN_TOKEN holds white space or control characters inside it")
        }
        return trimmed
    }

    /// Whether `host` (as given to `--host`) only accepts connections from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// What to say at start-up, or the error that stops it: open writes (no token) are a warning on loopback,
    /// and refused elsewhere unless `allowOpenWrites` says they are wanted.
    public static func check(host: String, token: String?, allowOpenWrites: Bool) throws(ServiceError) -> String? {
        guard token == nil else { return nil }
        if !isLoopback(host) && !allowOpenWrites {
            throw ServiceError(message: "refusing to serve open keyword writes on \(host): set KWSUGGEST_ADMIN_TOKEN, "
                               + "or pass --allow-open-writes if anyone who can reach this address may change the keywords")
        }
        return "keyword writes are open: KWSUGGEST_ADMIN_TOKEN is unset, so anyone who can reach \(host) may "
            + "change the keyword list, post feedback and export it (POST /v1/keywords, POST /v1/feedback, "
            + "GET /v1/feedback/export)"
    }

    /// What to say at start-up when writes are open and any origin may call the API from a browser: a page from
    /// any site, opened in a browser that can reach the server, sends the server's own `Host`, so the `Host` rule
    /// (see `HostPolicy`) does not stop it, and the preflight lets it write.
    public static func corsWarning(token: String?, cors: CORSPolicy) -> String? {
        guard token == nil, cors.allowedOrigins.contains("*") else { return nil }
        return "--cors-origin '*' with open writes: a web page from any site, opened in a browser that can reach "
            + "this server, may change the keyword list, post feedback and read the export; set "
            + "KWSUGGEST_ADMIN_TOKEN or name the origins"
    }
}
