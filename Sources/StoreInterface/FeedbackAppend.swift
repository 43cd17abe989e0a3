// Appending feedback with client ids, written once for every store: a retry with the same client id and the same
// decision gets the first record's id, the same id with another decision refuses the batch. The stores only
// find an earlier record and write a new one.

public enum FeedbackAppend {
    /// The receipts of appending `items` in order. An item with a client id (compared in its key form,
    /// `FeedbackRules.clientKey`) that an earlier record of the store (`earlier`) or an earlier item of this batch
    /// holds is a retry when it records the same decision (`FeedbackItem.sameDecision`): nothing is written and
    /// its receipt names the first record; with a different decision the whole batch is refused
    /// (`clientIDConflict`), and the store must write nothing of it. Every other item goes to `write`, with its
    /// client id in key form, which stores it and returns its new id.
    public static func receipts(
        for items: [FeedbackItem], receivedAt: String,
        earlier: (String) throws(KeywordStoreError) -> FeedbackRecord?,
        write: (FeedbackItem) throws(KeywordStoreError) -> Int64
    ) throws(KeywordStoreError) -> [FeedbackReceipt] {
        var receipts: [FeedbackReceipt] = []
        receipts.reserveCapacity(items.count)
        var pending: [String: FeedbackRecord] = [:]
        for var item in items {
            let key = item.clientID.map(FeedbackRules.clientKey)
            item.clientID = key
            var first: FeedbackRecord?
            if let key {
                first = pending[key]
                if first == nil { first = try earlier(key) }
            }
            if let key, let first {
                guard first.item.sameDecision(as: item) else {
                    throw .clientIDConflict(clientID: key, earlierID: first.id)
                }
                receipts.append(FeedbackReceipt(id: first.id, duplicate: true))
                continue
            }
            let id = try write(item)
            if let key { pending[key] = FeedbackRecord(id: id, receivedAt: receivedAt, item: item) }
            receipts.append(FeedbackReceipt(id: id, duplicate: false))
        }
        return receipts
    }
}
