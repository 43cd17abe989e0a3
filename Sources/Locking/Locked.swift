// A value guarded by a pthread mutex (through NSLock).
import Foundation

/// A value that many threads share, guarded by a lock: the one locking idiom of this package, used by the
/// HTTP core, the service and the keyword index alike, instead of `Synchronization.Mutex` or a bare `NSLock`.
///
/// Why not `Mutex`: on Linux its contended path waits on a futex inside the (uninstrumented) standard library, so
/// ThreadSanitizer cannot see the hand-over and reported the event loops' inbox as a race although every access
/// held the lock. `NSLock` is a pthread mutex, which ThreadSanitizer intercepts, so `swift test --sanitize=thread`
/// checks the server's real synchronisation. The cost is the same uncontended (one atomic exchange).
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    /// - Complexity: O(1) plus `body`.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
