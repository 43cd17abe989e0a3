// The one LISTEN loop of the PostgreSQL store: a connection of its own that listens on a channel and reads a
// revision, carrying out what `ChangeListenerMachine` decides. The keyword store and the model registry each run
// one, on their own channel and revision.
import Platform
#if canImport(Glibc)
import Glibc
#endif

struct PostgresListener {
    /// What one kind of listener listens to.
    struct Channel: Sendable {
        /// The channel of `LISTEN`.
        var name: String
        /// The query that reads the current revision (one row, one column).
        var revisionQuery: String
        /// The reason reported when a connection is made (anything may have changed while none listened).
        var connectedReason: String
        /// Whether the connection's loss and return set the client's availability (the keyword store's readiness).
        var reportsAvailability: Bool
    }

    let channel: Channel
    private var connection: PostgresConnection?
    private var machine = ChangeListenerMachine()

    init(_ channel: Channel) {
        self.channel = channel
    }

    /// One step: connects when there is no connection (waiting the machine's backoff after a failure), else waits
    /// up to 200 ms for notifications and reads the revision when they came or the periodic check is due.
    mutating func step(_ client: PostgresClient, onChange: @Sendable (String) -> Void) {
        guard let connection else {
            let event: ChangeListenerMachine.Event
            do {
                let fresh = try client.connect()
                try fresh.exec("LISTEN \(channel.name)")
                event = .connected(revision: try revision(fresh))
                self.connection = fresh
            } catch {
                event = .connectFailed
            }
            perform(machine.handle(event), client, onChange)
            return
        }
        var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, 200)
        do {
            if !(try connection.notifications()).isEmpty {
                perform(machine.handle(.notified(revision: try revision(connection))), client, onChange)
            }
            let now = MonotonicClock.nanoseconds()
            if machine.checkDue(now: now) {
                perform(machine.handle(.checked(revision: try revision(connection), now: now)), client, onChange)
            }
        } catch {
            self.connection = nil
            perform(machine.handle(.lost), client, onChange)
        }
    }

    private func perform(_ effects: ChangeListenerMachine.Effects, _ client: PostgresClient, _ onChange: @Sendable (String) -> Void) {
        if channel.reportsAvailability, let available = effects.available { client.setAvailable(available) }
        if let reason = effects.change {
            onChange(reason == ChangeListenerMachine.connectedReason ? channel.connectedReason : reason)
        }
        if let wait = effects.wait { usleep(useconds_t(wait * 1_000_000)) }
    }

    private func revision(_ connection: PostgresConnection) throws -> String? {
        try connection.rows(channel.revisionQuery).first?.optionalString(0)
    }
}
