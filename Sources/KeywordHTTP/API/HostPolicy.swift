// Which `Host` names may send writes while they are open (no admin token): the defence against DNS rebinding,
// where a page on attacker.example re-resolves its own name to 127.0.0.1 and then posts to this server with the
// browser's blessing, since to the browser it is still the same origin. Its requests still say
// `Host: attacker.example`, and that is what is refused here.
import APICore
import HTTPCore

/// The `Host` names open writes and the feedback export are served for: the loopback names, with any port, and the
/// names given with `serve --allowed-host` (also with any port). With an admin token it does not apply: the token
/// is what a rebinding page cannot send.
public struct HostPolicy: Sendable, Equatable {
    /// The names always allowed: what a browser on this machine sends for a loopback address.
    public static let loopbackNames = ["localhost", "127.0.0.1", "[::1]"]
    /// Names allowed beyond the loopback ones, lower-cased, without ports.
    public private(set) var allowedNames: [String] = []

    public init() {}

    /// Allows `names` (as given to `--allowed-host`) beyond the loopback names; nil and a message for a name that
    /// is not a plain host name or address.
    public init(allowedNames names: [String]) throws(ServiceError) {
        for name in names {
            guard let parsed = Self.split(name), parsed.port == nil else {
                throw ServiceError(message: "--allowed-host '\(name.prefix(200))' is not a host name: give a name such as "
                                   + "kwsuggest.internal or an address such as 10.0.0.5 or [fd00::5], without a port "
                                   + "(every port is allowed)")
            }
            allowedNames.append(parsed.name)
        }
    }

    /// Whether a request whose `Host` field is `host` may use an open write route.
    public func allows(host: String?) -> Bool {
        guard let host, let parsed = Self.split(host) else { return false }
        return Self.loopbackNames.contains(parsed.name) || allowedNames.contains(parsed.name)
    }

    /// A `Host` value (RFC 9110 §7.2: uri-host [":" port]) cut into its lower-cased name and port; nil when it is
    /// not one: empty, white space or controls, a bare IPv6 address, or a port that is not digits.
    static func split(_ value: String) -> (name: String, port: String?)? {
        let text = value.lowercased()
        guard !text.isEmpty, text.utf8.count <= 255,
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "/" && $0 != "@" }) else { return nil }
        var name = Substring(text)
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[...close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !name.isEmpty, name != "[]" else { return nil }
        if let port, port.isEmpty || port.count > 5 || !port.allSatisfy(\.isASCIIDigit) { return nil }
        return (String(name), port.map(String.init))
    }

    /// The refusal: 403 `host_not_allowed`, naming the remedies.
    func refusal(host: String?) -> APIError {
        let shown = host.map { "'\(String($0.prefix(100)))'" } ?? "(none)"
        return APIError(.forbidden, .hostNotAllowed,
                        "writes and the feedback export are open (no admin token), so they are served only to the Host "
                        + "names localhost, 127.0.0.1 and [::1] (any port) and those given with --allowed-host; this "
                        + "request's Host is \(shown). Use one of them, or set KWSUGGEST_ADMIN_TOKEN and send the token")
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// While writes are open (no token), the routes that need the token when one is set are served only for `Host`
/// names the policy allows (see `HostPolicy`).
struct HostGuard: Sendable {
    var policy: HostPolicy
    /// True when no admin token is set.
    var writesAreOpen: Bool

    /// The rule, run once on a request's head (see `KeywordAPI.admit`) so a refused body is never read.
    func check(_ request: HTTPRequest, route: APIRoute) throws(APIError) {
        guard writesAreOpen, route.needsToken else { return }
        let host = request.headers["Host"]
        if !policy.allows(host: host) { throw policy.refusal(host: host) }
    }
}
