// Loopback helpers for the live-server tests of this target: a blocking TCP client and a one-worker server.
import Foundation
import HTTPCore

enum LoopbackClient {
    /// Connects to 127.0.0.1:`port` with a 5 s receive timeout, sends `text` and returns the socket (the caller
    /// closes it).
    static func send(port: Int, _ text: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
        return fd
    }
}

extension HTTPServer {
    /// A started server on a free loopback port with one event loop and one shared worker, so that a few held
    /// requests fill a lane and its queue; no access log.
    static func oneWorker(_ responder: any HTTPResponder) throws -> HTTPServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 1
        configuration.blockingWorkers = 1
        configuration.accessLog = false
        let server = try HTTPServer(configuration: configuration, responder: responder)
        _ = try server.start()
        return server
    }
}
