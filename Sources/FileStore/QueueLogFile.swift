// The system calls of the queue's file store: the lock, whole-line appends with fsync, positioned reads.
import Foundation
import StoreInterface
import TeamQueue
#if canImport(Glibc)
import Glibc
#endif

enum QueueLogFile {
    /// Runs `body` holding the exclusive `flock` on `lockPath` (blocking until other processes release it).
    ///
    /// A store this process may only read (a read-only mount, another user's files: `train --feedback` on a copy)
    /// is locked through the existing lock file opened read-only; without one, no writer has ever used the queue
    /// there, and `body` runs unlocked. Its writes then fail where they open the log.
    static func withLock<T>(_ lockPath: String, _ body: () throws(QueueError) -> T) throws(QueueError) -> T {
        var fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0, errno == EROFS || errno == EACCES {
            fd = open(lockPath, O_RDONLY | O_CLOEXEC)
            if fd < 0, errno == ENOENT { return try body() }
        }
        guard fd >= 0 else { throw .store(failure("open", lockPath)) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .store(failure("flock", lockPath)) }
        }
        return try body()
    }

    /// Appends whole lines and fsyncs; bytes past `keepingFirst` (a line torn by a crash) are cut off first.
    /// A new file's directory is synced too, so the file itself survives a crash.
    static func append(_ bytes: [UInt8], to path: String, keepingFirst kept: Int) throws(KeywordStoreError) {
        let existed = access(path, F_OK) == 0
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        if !existed { try syncDirectory(of: path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("fstat", path) }
        if Int(info.st_size) > kept, ftruncate(fd, off_t(kept)) != 0 { throw failure("ftruncate", path) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                _ = ftruncate(fd, off_t(kept))
                errno = code
                throw failure("write", path)
            }
            offset += written
        }
        guard fsync(fd) == 0 else {
            let code = errno
            _ = ftruncate(fd, off_t(kept))
            errno = code
            throw failure("fsync", path)
        }
    }

    /// Replaces the file at `path` with `bytes` atomically: a temporary file beside it, fsynced, renamed over it,
    /// and the directory fsynced. Returns the new file's device and inode.
    static func replace(_ path: String, with bytes: [UInt8]) throws(KeywordStoreError) -> (device: UInt64, inode: UInt64) {
        let temporary = path + ".compacting"
        let fd = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", temporary) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let failed = failure("write", temporary)
                unlink(temporary)
                throw failed
            }
            offset += written
        }
        var info = stat()
        guard fsync(fd) == 0, fstat(fd, &info) == 0 else {
            let failed = failure("fsync", temporary)
            unlink(temporary)
            throw failed
        }
        guard rename(temporary, path) == 0 else {
            let failed = failure("rename", temporary)
            unlink(temporary)
            throw failed
        }
        try syncDirectory(of: path)
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// `count` bytes from `offset` (fewer when the file ends first).
    static func read(_ fd: Int32, from offset: Int, count: Int, path: String) throws(KeywordStoreError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(fd, base + filled, raw.count - filled, off_t(offset + filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("pread", path)
            }
            if got == 0 { break }
            filled += got
        }
        return Array(buffer.prefix(filled))
    }

    static func syncDirectory(of path: String) throws(KeywordStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync directory", directory) }
    }

    static func failure(_ call: String, _ path: String) -> KeywordStoreError {
        let code = errno
        return .failed("\(path): \(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
