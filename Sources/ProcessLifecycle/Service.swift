// Services with run/shutdown, and the group that runs them and shuts them down in reverse order.
import Dispatch
import Foundation
import Locking

/// A long-running part of the process: `run` blocks until the service is done or asked to stop.
protocol Service: Sendable {
    /// Runs on a thread of its own; throwing stops the group.
    func run() throws
    /// Asks `run` to return soon; called once, from another thread, after the services started after this one
    /// have returned.
    func shutdown()
}

/// Runs services, each on its own thread. The group stops when a service that `stopsGroup` returns or when any
/// service throws: then every service is shut down in reverse order of the list, each one's `run` awaited before
/// the next is asked, so a server drains before the store it writes to is closed.
final class ServiceGroup: Sendable {
    struct Entry: Sendable {
        var name: String
        var service: any Service
        /// Whether the service returning (without an error) ends the whole group.
        var stopsGroup: Bool
    }

    private let entries: [Entry]
    /// Signalled once when the group should stop.
    private let stop = DispatchSemaphore(value: 0)
    private let stopping = Locked(false)
    private let failure = Locked<(any Error)?>(nil)

    init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// Runs every service and returns once all have returned; throws the first service's error.
    func run() throws {
        let finished = entries.map { _ in DispatchSemaphore(value: 0) }
        for (entry, done) in zip(entries, finished) {
            let thread = Thread { [self] in
                do {
                    try entry.service.run()
                    if entry.stopsGroup { requestStop() }
                } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                    requestStop()
                }
                done.signal()
            }
            thread.name = "kwsuggest-" + entry.name
            thread.start()
        }
        stop.wait()
        for (entry, done) in zip(entries, finished).reversed() {
            entry.service.shutdown()
            done.wait()
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func requestStop() {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        if first { stop.signal() }
    }
}
