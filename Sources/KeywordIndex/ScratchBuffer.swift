// Fixed-size buffers that own their memory, so the kernels can take their pointers directly.

/// A buffer of `count` elements allocated once and freed with the buffer, so kernels can take its pointer
/// without a `withUnsafe…` closure per call. Debug builds check every subscript against `count`.
///
/// Not thread-safe: a scratch buffer belongs to one request at a time (see `ScratchPool`).
final class ScratchBuffer<Element: BitwiseCopyable> {
    let count: Int
    /// The first element; valid for `count` elements (and at least one) for the buffer's lifetime.
    let base: UnsafeMutablePointer<Element>

    init(count: Int, repeating value: Element) {
        precondition(count >= 0, "negative scratch size")
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: value, count: max(count, 1))
    }

    /// A buffer holding a copy of `values`.
    convenience init(copying values: [Element], filler: Element) {
        self.init(count: values.count, repeating: filler)
        for (index, value) in values.enumerated() { base[index] = value }
    }

    deinit {
        base.deallocate()
    }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            assert(index >= 0 && index < count, "scratch index \(index) outside 0..<\(count)")
            return base[index]
        }
        @inline(__always) set {
            assert(index >= 0 && index < count, "scratch index \(index) outside 0..<\(count)")
            base[index] = newValue
        }
    }

    /// The whole buffer, read-only.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// The whole buffer, writable.
    var mutableElements: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: count) }

    /// A copy of the first `length` elements.
    func prefix(_ length: Int) -> [Element] {
        assert(length >= 0 && length <= count, "prefix \(length) of a buffer of \(count)")
        return Array(UnsafeBufferPointer(start: base, count: length))
    }
}
