// Results of a concurrent loop, one slot per item, without a lock.
import ModelStorage

/// One result slot per item, each written by exactly one iteration of `DispatchQueue.concurrentPerform`, so no
/// two threads touch the same slot; `values` is read after the loop has returned.
final class ConcurrentResults<Value>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Value>
    let count: Int
    init(count: Int, empty: Value) {
        self.count = count
        storage = .allocate(capacity: max(1, count))
        storage.initialize(repeating: empty, count: max(1, count))
    }
    deinit {
        storage.deinitialize(count: max(1, count))
        storage.deallocate()
    }
    func set(_ i: Int, _ value: Value) {
        precondition(i >= 0 && i < count)
        storage[i] = value
    }
    var values: [Value] { (0..<count).map { storage[$0] } }
}
