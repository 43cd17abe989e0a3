// Reading the store's new decisions into the memory: what every replica runs to follow the others.
import StoreInterface

extension DecisionMemory {
    /// The most records one page of the store's feedback holds.
    public static let pageRecords = 1_000

    /// Reads the records `store` holds after the last one seen, a page at a time, and withdraws the queue's
    /// undone decisions. Returns how many records were read.
    /// - Throws: the store's error; what was read before it stays in the memory.
    @discardableResult
    public func catchUp(store: any KeywordStore, queue: (any QueueStore)?) throws -> Int {
        var read = 0
        while true {
            let page = try store.feedback(after: lastRecordID, limit: Self.pageRecords)
            ingest(page)
            read += page.count
            guard page.count == Self.pageRecords else { break }
        }
        if let queue { withdraw(try queue.withdrawnFeedback()) }
        return read
    }
}
