// The package's one binary search, used by the index's slot layout, the keyword list's order and the queue's
// pages.

extension RandomAccessCollection {
    /// The first index whose element satisfies `belongsAfter`, for a collection partitioned by it (every element
    /// that does not satisfy it comes before every one that does); `endIndex` when none does.
    /// - Complexity: O(log n).
    @inlinable
    public func partitioningIndex(where belongsAfter: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var length = count
        while length > 0 {
            let half = length / 2
            let middle = index(low, offsetBy: half)
            if try belongsAfter(self[middle]) {
                length = half
            } else {
                low = index(after: middle)
                length -= half + 1
            }
        }
        return low
    }
}

extension RandomAccessCollection where Element: Comparable {
    /// The first index whose element is not below `value` (`endIndex` when every element is), in a collection
    /// sorted ascending.
    /// - Complexity: O(log n).
    @inlinable
    public func lowerBound(of value: Element) -> Index {
        partitioningIndex { !($0 < value) }
    }
}
