// Accepting and handing over: loop 0 owns the listening sockets, accepts in batches, and hands each connection
// round-robin to a loop through that loop's inbox. Past `maxConnections` the receiving loop closes its longest idle
// connection to make room, and refuses the new one only when none is idle. On EMFILE loop 0 stops watching the
// listeners for a moment instead of spinning.
import CSystem
#if canImport(Glibc)
import Glibc
#endif

extension EventLoop {
    /// Accepts up to 256 waiting connections and hands each to a loop.
    func acceptAll(_ listener: Int32) {
        var accepted = 0
        while accepted < 256 {
            let client: Int32?
            do {
                client = try Syscall.accept(listener)
            } catch {
                // EMFILE/ENFILE and the like: the listener stays readable, so stop watching it for a moment
                // instead of spinning; connections wait in the backlog until descriptors free up.
                pauseAccepting()
                break
            }
            guard let fd = client else { break }
            accepted += 1
            try? Syscall.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            let open = core.openConnections.add(1, ordering: .relaxed).newValue
            if open > core.configuration.maxConnections + 256 {
                // Far beyond the limit (the loops have not caught up evicting): do not even spend a response on it.
                core.metrics.connectionRejected()
                core.openConnections.subtract(1, ordering: .relaxed)
                Syscall.close(fd)
                continue
            }
            let full = open > core.configuration.maxConnections
            let target = peers.isEmpty ? self : peers[nextPeer % peers.count]
            nextPeer &+= 1
            if target === self { adopt(fd, full: full) } else { target.post(.adopt(fd, full: full)) }
        }
    }

    /// Closes this loop's connection that `HTTPConnection.evictsBefore` ranks first, if any is idle.
    /// - Complexity: O(connections on this loop), paid only while the server is full.
    func evictIdle() -> Bool {
        var victim: HTTPConnection?
        for connection in connections.values where connection.evictionRank != nil {
            if victim.map({ connection.evictsBefore($0) }) ?? true { victim = connection }
        }
        guard let victim else { return false }
        core.metrics.connectionEvicted()
        close(victim)
        return true
    }

    /// Stops watching the listeners for 100 ms (descriptors ran out).
    func pauseAccepting() {
        guard acceptPausedUntil == nil else { return }
        acceptPausedUntil = now + 100_000_000
        for fd in listeners { _ = try? Syscall.epollControl(epoll, EPOLL_CTL_DEL, fd, events: 0) }
    }

    /// Watches the listeners again once the pause is over (checked on the timer tick).
    func resumeAcceptingIfDue() {
        guard let until = acceptPausedUntil, now >= until else { return }
        acceptPausedUntil = nil
        for fd in listeners { _ = try? Syscall.epollControl(epoll, EPOLL_CTL_ADD, fd, events: UInt32(EPOLLIN.rawValue)) }
    }

    /// Starts serving `fd`, which is already counted in `openConnections`; when it was accepted `full`, an idle
    /// connection makes room for it or it is refused.
    func adopt(_ fd: Int32, full: Bool) {
        let rejected = full && core.openConnections.load(ordering: .relaxed) > core.configuration.maxConnections
            && !evictIdle()
        if rejected { core.metrics.connectionRejected() }
        let id = core.nextConnectionID.add(1, ordering: .relaxed).newValue
        let connection = HTTPConnection(fd: fd, id: id, limits: core.configuration.limits, now: now,
                                        interest: Self.readInterest)
        do {
            try Syscall.epollControl(epoll, EPOLL_CTL_ADD, fd, events: Self.readInterest)
        } catch {
            core.openConnections.subtract(1, ordering: .relaxed)
            Syscall.close(fd)
            return
        }
        connections[fd] = connection
        core.metrics.connectionOpened()
        if rejected || draining {
            answerAndClose(connection, HTTPParseError(
                status: .serviceUnavailable, code: rejected ? .serverFull : .shuttingDown,
                message: rejected ? "too many open connections; retry later" : "the server is shutting down"),
                route: "(rejected)", seconds: 0)
            flush(connection)
        }
    }
}
