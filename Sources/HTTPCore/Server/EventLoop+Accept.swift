// Accepting and handing over: loop 0 owns the listening sockets, accepts in batches, refuses past
// `maxConnections`, and hands each connection round-robin to a loop through that loop's inbox. On EMFILE it
// stops watching the listeners for a moment instead of spinning.
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
            if open > core.configuration.maxConnections {
                core.metrics.connectionRejected()
                if open > core.configuration.maxConnections + 256 {
                    // Far beyond the limit: do not even spend a response on it.
                    core.openConnections.subtract(1, ordering: .relaxed)
                    Syscall.close(fd)
                } else {
                    adopt(fd, rejected: true)
                }
                continue
            }
            let target = peers.isEmpty ? self : peers[nextPeer % peers.count]
            nextPeer &+= 1
            if target === self { adopt(fd, rejected: false) } else { target.post(.adopt(fd)) }
        }
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

    /// Starts serving `fd`, which is already counted in `openConnections`.
    func adopt(_ fd: Int32, rejected: Bool) {
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
