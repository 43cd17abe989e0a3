// The clocks of the package, read one way: monotonic time for timeouts and durations, CPU time for benchmarks.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readings of the system's clocks (`clock_gettime`).
public enum MonotonicClock {
    /// Monotonic time in nanoseconds: never goes back, unaffected by changes to the wall clock.
    public static func nanoseconds() -> UInt64 {
        let time = read(CLOCK_MONOTONIC)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Monotonic time in seconds.
    public static func seconds() -> Double { seconds(CLOCK_MONOTONIC) }
    /// CPU time of the calling thread, in seconds: steadier than wall time on a shared machine.
    public static func threadCPUSeconds() -> Double { seconds(CLOCK_THREAD_CPUTIME_ID) }
    /// CPU time of the whole process (all threads), in seconds.
    public static func processCPUSeconds() -> Double { seconds(CLOCK_PROCESS_CPUTIME_ID) }

    private static func seconds(_ clock: clockid_t) -> Double {
        let time = read(clock)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var time = timespec()
        clock_gettime(clock, &time)
        return time
    }
}
