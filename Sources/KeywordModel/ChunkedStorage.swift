// Copy-on-write storage in chunks: a changed copy shares every chunk it did not touch with the original, so
// editing a few entries of a large immutable value costs the touched chunks, not the whole value.

/// One chunk's storage, immutable. A change builds a new box; when the old box is referenced only by the value
/// being changed, its storage is moved into the new box rather than copied (see `mutate`).
public final class ChunkBox<Value: Sendable>: Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// Applies `body` to the value in `slot` and stores the result in a new box. The old box is released before
/// `body` runs, so storage that only it referenced is changed in place instead of being copied.
@inline(__always)
private func mutate<Value, R>(_ slot: inout ChunkBox<Value>?, _ body: (inout Value) -> R) -> R {
    guard let box = slot else { preconditionFailure("chunk missing") }
    var value = box.value
    slot = nil
    _ = consume box
    let result = body(&value)
    slot = ChunkBox(value)
    return result
}

/// A growable array of `Element`s in chunks of `chunkLength`; setting an element copies only its chunk when
/// the chunk is shared with another copy of the array.
public struct ChunkedArray<Element: Sendable>: Sendable {
    private let shift: Int
    private var chunks: [ChunkBox<[Element]>?] = []
    private let filler: Element

    /// An empty array of chunks of 2^`chunkShift` elements; `grow` fills new elements with `filler`.
    public init(filler: Element, chunkShift: Int = 10) {
        self.filler = filler
        shift = chunkShift
    }

    public var count: Int { chunks.count << shift }

    /// Adds chunks until there are at least `count` elements.
    public mutating func grow(to count: Int) {
        while self.count < count { chunks.append(ChunkBox([Element](repeating: filler, count: 1 << shift))) }
    }

    public subscript(i: Int) -> Element {
        @inline(__always) get { chunks[i >> shift].unsafelyUnwrapped.value[i & ((1 << shift) - 1)] }
        set {
            let shift = self.shift
            mutate(&chunks[i >> shift]) { $0[i & ((1 << shift) - 1)] = newValue }
        }
    }
}

/// A hash map split by key hash into a fixed number of chunks, each a `Dictionary`.
public struct ChunkedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var chunks: [ChunkBox<[Key: Value]>?]

    /// `chunkCount` must be a power of two.
    public init(chunkCount: Int = 256) {
        precondition(chunkCount > 0 && chunkCount & (chunkCount - 1) == 0, "chunk count must be a power of two")
        // Every chunk starts as the same empty box; the first write to a chunk copies it.
        chunks = [ChunkBox<[Key: Value]>?](repeating: ChunkBox([:]), count: chunkCount)
    }

    @inline(__always) private func chunk(_ key: Key) -> Int { key.hashValue & (chunks.count - 1) }

    public subscript(key: Key) -> Value? {
        @inline(__always) get { chunks[chunk(key)].unsafelyUnwrapped.value[key] }
        set { mutate(&chunks[chunk(key)]) { $0[key] = newValue } }
    }

    /// Changes the value for `key` in place (`nil` when absent; set it to `nil` to remove the key).
    public mutating func modify<R>(_ key: Key, _ body: (inout Value?) -> R) -> R {
        mutate(&chunks[chunk(key)]) { body(&$0[key]) }
    }
}

extension ChunkedMap where Value == [Int32] {
    /// Appends `id` to the list of `key`.
    public mutating func append(_ id: Int32, to key: Key) {
        modify(key) { list in
            if list == nil { list = [id] } else { list!.append(id) }
        }
    }

    /// Removes one occurrence of `id` from the list of `key`; the key goes when its list is empty.
    public mutating func removeOne(_ id: Int32, from key: Key) {
        modify(key) { list in
            guard let at = list?.lastIndex(of: id) else { return }
            list!.remove(at: at)
            if list!.isEmpty { list = nil }
        }
    }

    /// Removes every id of `ids` from the list of `key` in one pass; the key goes when its list is empty.
    public mutating func remove(_ ids: Set<Int32>, from key: Key) {
        modify(key) { list in
            guard list != nil else { return }
            list!.removeAll { ids.contains($0) }
            if list!.isEmpty { list = nil }
        }
    }

    /// The list of `key`, empty when absent.
    public func list(_ key: Key) -> [Int32] { self[key] ?? [] }
}
