// Reading the store's new decisions into the memory: what every replica runs to follow the others.
import StoreInterface
import TeamQueue

extension DecisionMemory {
    /// The most records one read of the store's feedback holds. Large, because the file store reads its log from
    /// the first record asked for to the end whatever the limit: a start-up over 100,000 records is then one pass
    /// instead of a hundred.
    public static let pageRecords = 100_000

    /// Reads the records `store` holds after the last one seen, `pageRecords` at a time, and withdraws the queue's
    /// undone decisions. Returns how many records were read.
    /// - Throws: the store's error; what was read before it stays in the memory.
    @discardableResult
    public func catchUp(store: any KeywordStore, queue: (any QueueStore)?, pageRecords: Int = DecisionMemory.pageRecords) throws -> Int {
        var read = 0
        while true {
            let page = try store.feedback(after: lastRecordID, limit: pageRecords)
            ingest(page)
            read += page.count
            guard page.count == pageRecords else { break }
        }
        if let queue { withdraw(try queue.withdrawnFeedback()) }
        return read
    }
}
