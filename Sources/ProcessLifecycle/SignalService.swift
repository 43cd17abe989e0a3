// Signals as a service: SIGTERM and SIGINT stop the group, SIGHUP reloads the keyword list.
import EventLog
import Locking
import Sockets
#if canImport(Glibc)
import Glibc
#endif

/// Forwards SIGTERM, SIGINT and SIGHUP to a self-pipe from creation (before the server listens) until `run`
/// returns, and acts on them in batches (`SignalBatch`).
final class SignalService: Service {
    private let read: Int32
    private let write: Int32
    /// Set by `shutdown`; `closed` once `run` has restored the signals and closed the pipe (no wake-up after).
    private let flags = Locked((stopping: false, closed: false))
    private let reload: @Sendable (String) -> Void

    /// - Parameter reload: called with the reason (`SIGHUP`, `SIGHUP ×3`) when the keyword list should be re-read.
    init(reload: @escaping @Sendable (String) -> Void) throws {
        (read, write) = try Syscall.pipe()
        self.reload = reload
        do {
            for signal in [SIGTERM, SIGINT, SIGHUP] { try Syscall.forwardSignal(signal, to: write) }
        } catch {
            restore()
            throw error
        }
        Syscall.ignoreSIGPIPE()
    }

    /// Returns on SIGTERM or SIGINT (which stops the group), or once shut down.
    func run() throws {
        defer { restore() }
        while !flags.withLock({ $0.stopping }) {
            guard Syscall.waitReadable(read, milliseconds: -1) else { continue }
            // Read every pending signal first, then act once: a storm of SIGHUPs is one reload, and a
            // SIGTERM behind them is not kept waiting by reloads it makes pointless.
            var pending: [UInt8] = []
            while let byte = Syscall.readByte(read) { pending.append(byte) }
            switch SignalBatch(pending) {
            case .stop(let signal):
                EventLog.record(.info, "draining", ["signal": signal == SIGTERM ? "SIGTERM" : "SIGINT"])
                return
            case .reload(let count):
                reload(count == 1 ? "SIGHUP" : "SIGHUP ×\(count)")
            case .wake, .nothing:
                break
            }
        }
    }

    func shutdown() {
        flags.withLock { flags in
            flags.stopping = true
            if !flags.closed { Syscall.eventlessWake(write) }
        }
    }

    /// Puts the signals back to their default actions and closes the pipe (once; `run` does it when it returns).
    func restore() {
        flags.withLock { flags in
            guard !flags.closed else { return }
            for signal in [SIGTERM, SIGINT, SIGHUP] { Syscall.defaultSignal(signal) }
            Syscall.close(read)
            Syscall.close(write)
            flags.closed = true
        }
    }
}

/// What one batch of signals (bytes from the self-pipe) asks for, decided without side effects.
enum SignalBatch: Equatable {
    /// SIGTERM or SIGINT arrived: drain now, whatever else came with it.
    case stop(Int32)
    /// `count` SIGHUPs arrived: reload the keyword list once.
    case reload(count: Int)
    /// Only a wake-up (the group is stopping).
    case wake
    case nothing

    init(_ bytes: [UInt8]) {
        if let stop = bytes.first(where: { Int32($0) == SIGTERM || Int32($0) == SIGINT }) {
            self = .stop(Int32(stop))
            return
        }
        let hangups = bytes.filter { Int32($0) == SIGHUP }.count
        if hangups > 0 {
            self = .reload(count: hangups)
        } else {
            self = bytes.isEmpty ? .nothing : .wake
        }
    }
}
