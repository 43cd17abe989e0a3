// The lock files beside the overlay: an exclusive `flock` every read-modify-write of the file store holds (one
// for the overlay, one for the feedback log).
import StoreInterface
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on one file, taken per operation (open, lock, run, close). Safe for any number of
/// processes on one machine; not reliable on network file systems (NFS, RWX volumes).
struct FileLock: Sendable {
    let lockPath: String

    /// Runs `body` holding the exclusive lock on the lock file (blocking until other processes release it).
    func withLock<T>(_ body: () throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("open", lockPath) }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure("flock", lockPath) }
        }
        return try body()
    }

    /// A failed system call on `path`, with errno's text.
    static func failure(_ call: String, _ path: String) -> KeywordStoreError {
        let code = errno
        return .failed("\(path): \(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
