import Foundation
import Platform
import XCTest

/// Model-sized blocks get mappings of their own, so freeing them gives their memory back to the system, even when
/// a large block was freed first (by default glibc then raises its threshold past them and serves them from the
/// allocating thread's arena, whose holes stay resident) and small blocks that stay are allocated between them,
/// as a model load does. Measured with malloc's own figures rather than the process's RSS, which other tests'
/// threads move.
final class MemoryReleaseTests: XCTestCase {
    func testLargeBlocksAreMappedAndGoBackWhenFreed() throws {
        MemoryRelease.keepLargeBlocksMapped()
        let first = UnsafeMutableRawPointer.allocate(byteCount: 4 << 20, alignment: 16)
        first.initializeMemory(as: UInt8.self, repeating: 1, count: 4 << 20)
        first.deallocate()
        let before = MemoryRelease.mappedBytes()
        var large: [UnsafeMutableRawPointer] = []
        var small: [UnsafeMutableRawPointer] = []
        for _ in 0..<64 {
            let block = UnsafeMutableRawPointer.allocate(byteCount: 2 << 20, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 2 << 20)
            large.append(block)
            small.append(UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16))
        }
        let held = MemoryRelease.mappedBytes()
        // Other tests' threads may map and free blocks meanwhile (a full run measured 58 of the 128 MiB): a quarter
        // of the blocks' bytes is the bound, still far from the none that glibc's default gives them.
        XCTAssertGreaterThanOrEqual(held - before, 16 * (2 << 20), "the 2 MiB blocks have mappings of their own")
        for block in large { block.deallocate() }
        MemoryRelease.returnFreedMemory()
        let after = MemoryRelease.mappedBytes()
        for block in small { block.deallocate() }
        XCTAssertGreaterThanOrEqual(held - after, 16 * (2 << 20), "freed, the mappings went back: \((held - after) >> 20) MiB")
    }
}
