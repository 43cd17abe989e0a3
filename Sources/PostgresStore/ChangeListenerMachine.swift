// The PostgreSQL change listener's decisions, apart from its I/O: when to report a change, when the store is
// reachable, how long to wait before reconnecting, when the revision is due for a check.

/// What the listener thread does next, decided without side effects (the thread performs the `Effects`).
///
/// Connected, it reports a change on every notification and whenever the periodic revision check finds a new
/// revision (a notification may be missed); each (re)connection reports one too, since anything may have
/// changed while it was not listening. Disconnected, it waits with a backoff doubling from 0.1 s to 2 s.
struct ChangeListenerMachine: Equatable {
    /// The first wait after a failed connection, and the longest.
    static let firstBackoff = 0.1
    static let longestBackoff = 2.0
    /// How often the revision is read even without a notification, in nanoseconds.
    static let checkInterval: UInt64 = 1_000_000_000
    /// The change reported when a connection is made.
    static let connectedReason = "store connected"

    enum State: Equatable {
        case disconnected(backoff: Double)
        /// Listening; `revision` is the last one seen.
        case listening(revision: String?)
    }

    enum Event: Equatable {
        /// A connection was made and is listening; `revision` is the current one.
        case connected(revision: String?)
        /// Connecting failed.
        case connectFailed
        /// Notifications arrived; `revision` is the current one, read after them.
        case notified(revision: String?)
        /// The periodic check read `revision` at `now`.
        case checked(revision: String?, now: UInt64)
        /// A query on the listening connection failed: the connection is gone.
        case lost
    }

    /// What to do after an event.
    struct Effects: Equatable {
        /// Report a possible change of the keyword list, with this reason.
        var change: String?
        /// Set the store's availability.
        var available: Bool?
        /// Wait this many seconds before the next step.
        var wait: Double?
    }

    private(set) var state = State.disconnected(backoff: firstBackoff)
    /// When the revision is next read (monotonic nanoseconds); kept across reconnections.
    private(set) var nextCheck: UInt64 = 0

    var isConnected: Bool {
        if case .listening = state { return true }
        return false
    }

    /// Whether the periodic revision check is due at `now`.
    func checkDue(now: UInt64) -> Bool { isConnected && now >= nextCheck }

    mutating func handle(_ event: Event) -> Effects {
        switch (state, event) {
        case (.disconnected, .connected(let revision)):
            state = .listening(revision: revision)
            return Effects(change: Self.connectedReason, available: true)
        case (.disconnected(let backoff), .connectFailed):
            state = .disconnected(backoff: min(backoff * 2, Self.longestBackoff))
            return Effects(available: false, wait: backoff)
        case (.listening, .notified(let revision)):
            state = .listening(revision: revision)
            return Effects(change: "notified")
        case (.listening(let seen), .checked(let revision, let now)):
            nextCheck = now + Self.checkInterval
            guard revision != seen else { return Effects() }
            state = .listening(revision: revision)
            return Effects(change: "revision changed")
        case (.listening, .lost):
            state = .disconnected(backoff: Self.firstBackoff)
            return Effects(available: false)
        case (.listening, .connected), (.listening, .connectFailed), (.disconnected, .notified),
             (.disconnected, .checked), (.disconnected, .lost):
            // Events of the other state cannot arrive (the thread asks only what the state calls for).
            return Effects()
        }
    }
}
