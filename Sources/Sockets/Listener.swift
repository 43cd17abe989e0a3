// Listening sockets for a host and port, IPv4 and IPv6. Knows nothing about HTTP.
#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking TCP socket.
package struct Listener {
    package let fd: Int32
    package let host: String
    package let port: Int

    /// Binds every address `host` resolves to (numeric or a name such as `localhost`) on `port`.
    ///
    /// With port 0 the first socket picks a free port and the others reuse it. `::` listens on IPv6 and,
    /// through `IPV6_V6ONLY = 0`, on IPv4 too. Sockets are `SO_REUSEADDR` so restarts do not wait for TIME_WAIT.
    package static func bind(host: String, port: Int, backlog: Int32) throws -> [Listener] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError(call: "getaddrinfo(\(host))", errno: status, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }

        var listeners: [Listener] = []
        var chosenPort = port
        var lastError: SocketError?
        var seen: Set<String> = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let info = current.pointee
            guard let address = info.ai_addr, info.ai_family == AF_INET || info.ai_family == AF_INET6 else { continue }
            if chosenPort != port { setPort(address, chosenPort) }
            guard let key = try? Syscall.describe(address, length: info.ai_addrlen), seen.insert("\(key.host)|\(key.port)").inserted else { continue }
            do {
                let listener = try open(address: address, length: info.ai_addrlen, family: info.ai_family, backlog: backlog)
                if chosenPort == 0 { chosenPort = listener.port }
                listeners.append(listener)
            } catch let error as SocketError {
                // Hosts without IPv6 can still serve IPv4 (and the other way round).
                lastError = error
            }
        }
        if listeners.isEmpty {
            throw lastError ?? SocketError(call: "bind(\(host):\(port))", errno: 0, message: "no usable address")
        }
        return listeners
    }

    private static func open(address: UnsafeMutablePointer<sockaddr>, length: socklen_t, family: Int32,
                             backlog: Int32) throws -> Listener {
        let fd = try Syscall.socket(family: family, type: Int32(SOCK_STREAM.rawValue))
        do {
            try Syscall.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            if family == AF_INET6 {
                try Syscall.setOption(fd, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: isUnspecified6(address) ? 0 : 1)
            }
            try Syscall.bind(fd, address: address, length: length)
            try Syscall.listen(fd, backlog: backlog)
            let local = try Syscall.localAddress(fd)
            return Listener(fd: fd, host: local.host, port: local.port)
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    private static func isUnspecified6(_ address: UnsafeMutablePointer<sockaddr>) -> Bool {
        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
            withUnsafeBytes(of: pointer.pointee.sin6_addr) { $0.allSatisfy { $0 == 0 } }
        }
    }

    private static func setPort(_ address: UnsafeMutablePointer<sockaddr>, _ port: Int) {
        let networkPort = in_port_t(UInt16(port).bigEndian)
        if Int32(address.pointee.sa_family) == AF_INET {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = networkPort }
        } else {
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = networkPort }
        }
    }

    /// `http://host:port` with brackets around IPv6 literals.
    package var url: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }
}
