// Reusable per-request work space, handed out to one thread at a time.
import KeywordModel
import Locking

/// Buffers for scoring one name; sized once for a keyword count and a maximum name length.
final class IndexScratch {
    var projected: [Float]
    var states: [Float]
    var units: [Float]
    var gram: [Float]
    var alpha: [Float]
    var internalScores: [Float]
    var work: [SIMD8<Float>]
    var heap: [ScoredKeyword]
    var lexical: LexicalScratch

    init(keywords: Int, padded: Int, hidden: Int, maxTokens: Int) {
        projected = [Float](repeating: 0, count: maxTokens * hidden)
        states = projected
        units = projected
        gram = [Float](repeating: 0, count: maxTokens * maxTokens)
        alpha = [Float](repeating: 0, count: maxTokens)
        internalScores = [Float](repeating: 0, count: max(padded, keywords))
        work = [SIMD8<Float>](repeating: SIMD8<Float>(), count: 2 * 3 * maxTokens)
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
