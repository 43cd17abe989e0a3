// Reusable per-request work space, handed out to one thread at a time.
import KeywordModel
import Locking

/// Buffers for scoring one name; sized once for a keyword count and a maximum name length.
/// It owns its buffers, so the kernels take their pointers directly.
final class IndexScratch {
    let projected: ScratchBuffer<Float>
    let states: ScratchBuffer<Float>
    let units: ScratchBuffer<Float>
    let gram: ScratchBuffer<Float>
    let alpha: ScratchBuffer<Float>
    let internalScores: ScratchBuffer<Float>
    /// 3 · maxTokens SIMD8 values per scoring thread (two at most).
    let work: ScratchBuffer<SIMD8<Float>>
    var heap: [ScoredKeyword]
    var lexical: LexicalScratch

    init(keywords: Int, padded: Int, hidden: Int, maxTokens: Int) {
        projected = ScratchBuffer(count: maxTokens * hidden, repeating: 0)
        states = ScratchBuffer(count: maxTokens * hidden, repeating: 0)
        units = ScratchBuffer(count: maxTokens * hidden, repeating: 0)
        gram = ScratchBuffer(count: maxTokens * maxTokens, repeating: 0)
        alpha = ScratchBuffer(count: maxTokens, repeating: 0)
        internalScores = ScratchBuffer(count: max(padded, keywords), repeating: 0)
        work = ScratchBuffer(count: 2 * 3 * maxTokens, repeating: SIMD8<Float>())
        heap = []
        heap.reserveCapacity(64)
        lexical = LexicalScratch(keywordCount: keywords)
    }
}

/// A lock-protected stack of scratch objects: a request takes one, uses it alone, and gives it back.
final class ScratchPool: @unchecked Sendable {
    private let free = Locked<[IndexScratch]>([])
    private let make: @Sendable () -> IndexScratch

    init(make: @escaping @Sendable () -> IndexScratch) {
        self.make = make
    }

    func with<R>(_ body: (IndexScratch) -> R) -> R {
        let taken = free.withLock { $0.popLast() } ?? make()
        defer { free.withLock { $0.append(taken) } }
        return body(taken)
    }
}
