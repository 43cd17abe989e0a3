// How the lifecycle services wait: for a shutdown, or for a while (a backoff, a poll interval). The process waits
// on the system's clock; tests inject a clock that records each wait and returns at once, so no test sleeps.
import Dispatch
import Locking
import Platform

/// A one-way signal that a service should stop: once signalled it stays signalled, and every wait on it returns.
final class StopSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let signalled = Locked(false)

    init() {}

    /// Signals the stop; later calls do nothing.
    func signal() {
        let first = signalled.withLock { signalled in
            defer { signalled = true }
            return !signalled
        }
        if first { semaphore.signal() }
    }

    var isSignalled: Bool { signalled.withLock { $0 } }

    /// Waits until signalled, or at most `seconds` (forever when nil); true when signalled.
    func wait(seconds: Double?) -> Bool {
        if isSignalled { return true }
        let outcome: DispatchTimeoutResult
        if let seconds {
            outcome = semaphore.wait(timeout: .now() + .nanoseconds(Int(max(0, seconds) * 1e9)))
        } else {
            semaphore.wait()
            outcome = .success
        }
        guard outcome == .success else { return isSignalled }
        semaphore.signal()  // Kept signalled for every later wait.
        return true
    }
}

/// The waits of a service.
protocol ServiceClock: Sendable {
    /// Waits until `stop` is signalled or `seconds` have passed (forever when nil); true when stopped.
    func wait(for seconds: Double?, or stop: StopSignal) -> Bool
    /// Monotonic time in nanoseconds (durations such as the model's load time).
    func nanoseconds() -> UInt64
}

/// The system's monotonic clock.
struct SystemServiceClock: ServiceClock {
    init() {}

    func wait(for seconds: Double?, or stop: StopSignal) -> Bool {
        stop.wait(seconds: seconds)
    }

    func nanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}
