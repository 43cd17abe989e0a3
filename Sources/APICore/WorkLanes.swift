// The API's worker lanes, named for the work each runs: a kind of work waits only behind its own kind.
import HTTPCore

extension WorkLane {
    /// Batches of suggestions: long jobs, kept off the event loops and away from every write.
    public static let batches = WorkLane("batches")
    /// Keyword changes: short, each synced to the store.
    public static let keywordWrites = WorkLane("keyword-writes")
    /// The annotation queue's leases, decisions and undos, which never wait behind keyword changes.
    public static let queueWrites = WorkLane("queue-writes")
    /// Feedback posts, which can be large appends; keyword changes never wait behind them.
    public static let feedback = WorkLane("feedback")
    /// Answers whose size depends on the stored data rather than on the request (long lists, exports), and every
    /// streamed body's pieces: many of them queue only behind each other.
    public static let bulkReads = WorkLane("bulk-reads")

    /// The lanes the API runs on and their threads.
    public static let apiLanes: [WorkLane: Int] = [
        .batches: 2, .keywordWrites: 1, .queueWrites: 1, .feedback: 1, .bulkReads: 2,
    ]
}
