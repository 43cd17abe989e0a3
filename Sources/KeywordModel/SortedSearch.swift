// Binary search in an ascending array, shared by the index's slot layout and the service's list order.

extension Array where Element: Comparable {
    /// The first index whose element is not below `value` (`count` when every element is), in an array sorted
    /// ascending.
    /// - Complexity: O(log n).
    public func lowerBound(of value: Element) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
