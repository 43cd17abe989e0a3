// Giving memory back to the system when a large structure is freed: glibc's malloc keeps freed memory for reuse,
// which a long-running server that loads and drops whole models pays for in resident memory.
import CSystem

/// How a process that replaces large structures (a model swap) keeps its resident memory bounded.
///
/// glibc serves an allocation of at least `M_MMAP_THRESHOLD` with its own mapping, returned to the system when
/// freed; smaller ones come from arenas (one per thread that allocates), whose free memory stays in the process.
/// By default the threshold rises to the size of every mapped block freed (up to 32 MiB), so after the first
/// model is dropped, the next model's arrays come from the arenas of the thread that loaded it, and each swap
/// leaves another model's worth of holes behind. Fixing the threshold keeps model-sized arrays in mappings of
/// their own; trimming after a swap returns the arenas' free pages.
public enum MemoryRelease {
    /// The allocation size from which glibc maps memory of its own for each block: 1 MiB, well above a request's
    /// buffers and well below a model's arrays.
    public static let mappedThreshold: Int32 = 1 << 20

    /// Fixes the mapping threshold at `mappedThreshold` (this also stops glibc raising it). Call once at start.
    public static func keepLargeBlocksMapped() {
        _ = mallopt(M_MMAP_THRESHOLD, mappedThreshold)
    }

    /// Bytes in blocks that have mappings of their own (`mallinfo2().hblkhd`, over every arena): freed, they go
    /// back to the system at once.
    public static func mappedBytes() -> Int {
        Int(mallinfo2().hblkhd)
    }

    /// Returns the free memory of every arena to the system (`malloc_trim`), after a large structure was freed.
    public static func returnFreedMemory() {
        _ = malloc_trim(0)
    }
}
