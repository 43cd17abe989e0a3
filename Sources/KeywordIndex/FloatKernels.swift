// The only unsafe-pointer code of the index: dot products and AXPY over contiguous Float32 rows.

/// Vectorised kernels over raw Float32 buffers. Callers pass pointers obtained inside
/// `withUnsafe(Mutable)BufferPointer` and guarantee `count` elements are valid at each.
@usableFromInline
enum FloatKernels {
    /// Σ a[i] · b[i].
    /// - Complexity: O(count).
    @inlinable @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var acc0 = SIMD8<Float>(), acc1 = SIMD8<Float>()
        var i = 0
        let rawA = UnsafeRawPointer(a), rawB = UnsafeRawPointer(b)
        while i + 16 <= count {
            acc0 += rawA.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc1 += rawA.loadUnaligned(fromByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
            i += 16
        }
        while i + 8 <= count {
            acc0 += rawA.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }

    /// y[i] += alpha · x[i].
    /// - Complexity: O(count).
    @inlinable @inline(__always)
    static func axpy(_ alpha: Float, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        for i in 0..<count { y[i] += alpha * x[i] }
    }
}
