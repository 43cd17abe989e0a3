// Writing and closing: send a connection's queued output until the socket would block, keep its epoll interest
// in step with what it waits for (reading stops while a slow reader has `outputHighWater` unsent), and close it.
import CSystem
import Sockets
#if canImport(Glibc)
import Glibc
#endif

extension EventLoop {
    /// Sends queued output until it is all sent or the socket would block; then closes or pulls as the state says.
    func flush(_ connection: HTTPConnection) {
        while connection.hasUnsentOutput {
            let result = connection.outbound.withUnsafeBytes { raw in
                Syscall.send(connection.fd, UnsafeRawBufferPointer(rebasing: raw[connection.sent...]))
            }
            switch result {
            case .bytes(let count):
                connection.sent += count
                connection.lastWriteAt = now
            case .wouldBlock:
                updateInterest(connection)
                return
            case .closed:
                close(connection)
                return
            }
        }
        connection.outbound.removeAll(keepingCapacity: connection.outbound.capacity <= 256 * 1024)
        connection.sent = 0
        if connection.state == .closingAfterFlush {
            Syscall.shutdownWrite(connection.fd)
            connection.state = .lingering(until: now + 2_000_000_000)
        }
        updateInterest(connection)
        pull(connection)
    }

    /// Watches for what the connection waits for: writability while output is unsent, input unless it is parked.
    func updateInterest(_ connection: HTTPConnection) {
        var wanted: UInt32 = 0
        if connection.hasUnsentOutput { wanted |= Self.writeInterest }
        switch connection.state {
        case .active, .lingering:
            if connection.outbound.count - connection.sent < Self.outputHighWater { wanted |= Self.readInterest }
        case .waiting:
            wanted |= Self.hangUpInterest
        case .streaming, .closingAfterFlush:
            break
        }
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        do {
            try Syscall.epollControl(epoll, EPOLL_CTL_MOD, connection.fd, events: wanted)
        } catch {
            close(connection)
        }
    }

    /// Forgets the connection, returns its body budget and closes the socket (once).
    func close(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        if connection.state == .waiting {
            connection.presence?.markGone()
            if connection.reservedBodyBytes > 0 {
                orphanedBodyBytes[connection.id] = connection.reservedBodyBytes
                connection.reservedBodyBytes = 0
            }
        }
        releaseBody(of: connection)
        connection.streaming = nil
        Syscall.close(connection.fd)
        core.openConnections.subtract(1, ordering: .relaxed)
        core.metrics.connectionClosed()
    }
}
