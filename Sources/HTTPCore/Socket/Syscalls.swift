// Every system call of the HTTP core that can fail with an errno (sockets, epoll, eventfd, pipes, signals,
// limits, clocks) is wrapped here. A failure the caller can act on becomes a `SocketError` naming the call, at
// the place it failed; an errno that can only mean a bug in this process (EBADF, EFAULT, EINVAL: a wrong
// descriptor, pointer or argument) stops the process with the call's name, as swift-nio does, instead of being
// mistaken for a peer that went away. Elsewhere the HTTP core calls only libc helpers that report failure in
// their return value (gmtime_r, and getaddrinfo in Listener.swift).
import CSystem
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, its errno, and a readable message.
public struct SocketError: Error, CustomStringConvertible, Equatable, Sendable {
    public var call: String
    public var errno: Int32
    public var message: String
    public var description: String { "\(call) failed: \(message) (errno \(errno))" }

    /// Captures `errno` right after `call` failed.
    static func last(_ call: String) -> SocketError {
        let code = csystem_errno()
        return SocketError(call: call, errno: code, message: String(cString: strerror(code)))
    }
}

/// Thin wrappers over the Linux calls the socket layer needs. No other file of the HTTP core reads errno.
public enum Syscall {
    /// Stops the process for an errno that only a programming error can cause; other errnos are returned.
    @inline(__always)
    static func checkProgrammingError(_ call: StaticString, _ code: Int32) {
        switch code {
        case EBADF, EFAULT, EINVAL:
            preconditionFailure("\(call) failed with \(String(cString: strerror(code))) (errno \(code)): a bug in this process")
        default:
            return
        }
    }

    /// Result of a non-blocking read or write.
    enum IOResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case closed
    }

    static func socket(family: Int32, type: Int32) throws -> Int32 {
        let fd = Glibc.socket(family, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.last("socket") }
        return fd
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SocketError.last("setsockopt(\(name))")
        }
    }

    static func bind(_ fd: Int32, address: UnsafePointer<sockaddr>, length: socklen_t) throws {
        guard Glibc.bind(fd, address, length) == 0 else { throw SocketError.last("bind") }
    }

    static func listen(_ fd: Int32, backlog: Int32) throws {
        guard Glibc.listen(fd, backlog) == 0 else { throw SocketError.last("listen") }
    }

    /// Accepts one connection, non-blocking and close-on-exec; nil when none is waiting.
    static func accept(_ fd: Int32) throws -> Int32? {
        while true {
            let client = csystem_accept4(fd, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if client >= 0 { return client }
            switch csystem_errno() {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // The peer left before we accepted it, or a firewall refused it: skip this one. Running out of
            // descriptors (EMFILE, ENFILE) throws; the event loop then pauses accepting for a while.
            case ECONNABORTED, EPROTO, EPERM: continue
            default: throw SocketError.last("accept4")
            }
        }
    }

    /// The local port and printable address of a bound socket.
    static func localAddress(_ fd: Int32) throws -> (host: String, port: Int) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SocketError.last("getsockname") }
        return try withUnsafePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try describe($0, length: length) }
        }
    }

    /// Host and port of a socket address, numeric.
    static func describe(_ address: UnsafePointer<sockaddr>, length: socklen_t) throws -> (host: String, port: Int) {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                                 NI_NUMERICHOST | NI_NUMERICSERV)
        guard status == 0 else {
            throw SocketError(call: "getnameinfo", errno: status, message: String(cString: gai_strerror(status)))
        }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let portText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (hostText, Int(portText) ?? 0)
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            let code = csystem_errno()
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default:
                checkProgrammingError("read", code)
                return .closed  // ECONNRESET and friends: the peer is gone.
            }
        }
    }

    /// Sends with `MSG_NOSIGNAL`, so a vanished peer yields EPIPE instead of killing the process.
    static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let count = Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .bytes(count) }
            let code = csystem_errno()
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default:
                checkProgrammingError("send", code)
                return .closed  // EPIPE, ECONNRESET: the peer is gone.
            }
        }
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    // MARK: epoll and eventfd

    static func epollCreate() throws -> Int32 {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SocketError.last("epoll_create1") }
        return fd
    }

    static func epollControl(_ epoll: Int32, _ operation: Int32, _ fd: Int32, events: UInt32) throws {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        guard epoll_ctl(epoll, operation, fd, &event) == 0 else { throw SocketError.last("epoll_ctl") }
    }

    static func epollWait(_ epoll: Int32, _ events: UnsafeMutablePointer<epoll_event>, capacity: Int32,
                          timeoutMilliseconds: Int32) -> Int32 {
        let count = epoll_wait(epoll, events, capacity, timeoutMilliseconds)
        if count >= 0 { return count }
        let code = csystem_errno()
        // EINTR (a signal arrived) is the only errno a correct caller can see: no events, loop again.
        if code != EINTR { preconditionFailure("epoll_wait failed: \(String(cString: strerror(code))) (errno \(code))") }
        return 0
    }

    static func eventCreate() throws -> Int32 {
        let fd = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard fd >= 0 else { throw SocketError.last("eventfd") }
        return fd
    }

    static func eventSignal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = Glibc.write(fd, &one, 8)
    }

    static func eventDrain(_ fd: Int32) {
        var value: UInt64 = 0
        _ = Glibc.read(fd, &value, 8)
    }

    /// A non-blocking, close-on-exec pipe: (read end, write end).
    public static func pipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard csystem_pipe2(&fds, Int32(O_NONBLOCK | O_CLOEXEC)) == 0 else { throw SocketError.last("pipe2") }
        return (fds[0], fds[1])
    }

    /// Routes `signal` to a byte on `fd` (see CSystem.c).
    public static func forwardSignal(_ signal: Int32, to fd: Int32) throws {
        guard csystem_forward_signal(signal, fd) == 0 else { throw SocketError.last("sigaction") }
    }

    public static func defaultSignal(_ signal: Int32) {
        _ = csystem_default_signal(signal)
    }

    /// Raises the soft open-file limit to the hard limit, so `maxConnections` is not capped by a low default.
    /// - Returns: the soft limit in force afterwards.
    @discardableResult
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return Int(raised.rlim_cur) }
        }
        return Int(limit.rlim_cur)
    }

    public static func ignoreSIGPIPE() {
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Waits until `fd` is readable or `milliseconds` pass; true when readable.
    public static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&descriptor, 1, milliseconds) > 0
    }

    /// Reads one byte from a non-blocking descriptor, nil when none is waiting.
    public static func readByte(_ fd: Int32) -> UInt8? {
        var byte: UInt8 = 0
        return Glibc.read(fd, &byte, 1) == 1 ? byte : nil
    }

    /// Writes a zero byte to a pipe to wake its reader without naming a signal.
    public static func eventlessWake(_ fd: Int32) {
        var byte: UInt8 = 0
        _ = Glibc.write(fd, &byte, 1)
    }

    /// Lets other runnable threads on this CPU go first (sched_yield(2)); returns at once when there are none.
    static func yieldProcessor() {
        _ = sched_yield()
    }

    /// The number of online CPUs (at least 1).
    static func onlineProcessors() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Monotonic time in nanoseconds (see `MonotonicClock`).
    public static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }

    /// Wall-clock seconds since 1970.
    static func wallSeconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int(time.tv_sec)
    }

    static func wallTime() -> (sec: Int, nsec: Int) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return (Int(time.tv_sec), Int(time.tv_nsec))
    }

    /// Writes all of `bytes` to a blocking descriptor such as stderr.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(fd, base + offset, raw.count - offset)
                if count < 0 {
                    if csystem_errno() == EINTR || csystem_errno() == EAGAIN { continue }
                    return
                }
                offset += count
            }
        }
    }
}
