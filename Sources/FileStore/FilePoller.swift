// Noticing that another process rewrote a file, by polling its identity: the one watcher the file store's overlay
// and its model registry share.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Identity, size and modification time of a file; any change means it was rewritten.
struct FileIdentity: Equatable {
    var device: UInt64 = 0, inode: UInt64 = 0, size: Int64 = 0, seconds: Int = 0, nanoseconds: Int = 0
    var exists = false

    init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        exists = true
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// A thread that polls one file's `FileIdentity` every `interval` seconds and calls `onChange(reason)` on each
/// change, until `isStopped` answers true. It reports once at start ("watch started"): the file may have changed
/// between the caller's first read and the first poll.
enum FilePoller {
    static func start(path: String, interval: Double, threadName: String, reason: String,
                      isStopped: @escaping @Sendable () -> Bool, onChange: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var last = FileIdentity(path: path)
            onChange("watch started")
            while !isStopped() {
                usleep(useconds_t(interval * 1_000_000))
                let now = FileIdentity(path: path)
                if now != last {
                    last = now
                    onChange(reason)
                }
            }
        }
        thread.name = threadName
        thread.start()
    }
}
