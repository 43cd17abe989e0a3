// How many exports stream at once: each holds a place until its body has streamed or its client has gone.
import Locking

/// How many exports of one kind (feedback; the queue's labels and flagged items) may stream at once: each holds a
/// store reader and up to a piece of output, so many
/// slow or stalled clients cannot add up to much memory or keep the bulk lane's workers busy for long.
package final class ExportSlots: Sendable {
    /// Held by one export; the place is given back when the last reference goes (the body ended, failed, or its
    /// client left and the connection dropped it).
    package final class Slot: Sendable {
        private let owner: ExportSlots
        fileprivate init(owner: ExportSlots) { self.owner = owner }
        deinit { owner.taken.withLock { $0 -= 1 } }
    }

    package let limit: Int
    fileprivate let taken = Locked(0)

    package init(limit: Int) { self.limit = max(1, limit) }

    /// A place, or nil when `limit` exports stream already.
    package func take() -> Slot? {
        let granted = taken.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return granted ? Slot(owner: self) : nil
    }

    package var inUse: Int { taken.withLock { $0 } }
}
