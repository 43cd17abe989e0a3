// FNV-1a, the one non-cryptographic hash of the package: lexicon and lattice lookups, vector tables, n-gram
// buckets, keyword-list versions and the training split all use it. Model files and list versions depend on its
// exact values, so they are fixed here and nowhere else.

/// Fowler–Noll–Vo 1a: xor a unit into the hash, then multiply by the prime.
public enum FNV1a {
    /// The 64-bit offset basis.
    public static let basis64: UInt64 = 0xCBF2_9CE4_8422_2325
    /// The 64-bit prime.
    public static let prime64: UInt64 = 0x0000_0100_0000_01B3
    /// The 32-bit offset basis.
    public static let basis32: UInt32 = 2_166_136_261
    /// The 32-bit prime.
    public static let prime32: UInt32 = 16_777_619

    /// One 64-bit step over a unit of any width (a byte, a UTF-16 code unit, a 32-bit value).
    @inlinable @inline(__always)
    public static func step(_ hash: UInt64, _ unit: UInt64) -> UInt64 {
        (hash ^ unit) &* prime64
    }

    /// The 64-bit hash of `bytes`, one step per byte.
    @inlinable @inline(__always)
    public static func hash64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = basis64
        for byte in bytes { hash = step(hash, UInt64(byte)) }
        return hash
    }

    /// One 32-bit step.
    @inlinable @inline(__always)
    public static func step32(_ hash: UInt32, _ unit: UInt32) -> UInt32 {
        (hash ^ unit) &* prime32
    }
}
