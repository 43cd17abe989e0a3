import Foundation
import Platform
import XCTest

/// Freed model-sized blocks go back to the system even when small blocks that stay are allocated between them,
/// as a model load does (a thread's arena otherwise keeps the holes, and each swap leaves a model's worth).
final class MemoryReleaseTests: XCTestCase {
    /// Resident memory of this process in bytes.
    private func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    func testFreedLargeBlocksReturnToTheSystem() throws {
        MemoryRelease.keepLargeBlocksMapped()
        // A large block freed first: by default glibc would raise its mapping threshold past the blocks below.
        let first = UnsafeMutableRawPointer.allocate(byteCount: 4 << 20, alignment: 16)
        first.initializeMemory(as: UInt8.self, repeating: 1, count: 4 << 20)
        first.deallocate()
        let before = try residentBytes()
        var large: [UnsafeMutableRawPointer] = []
        var small: [UnsafeMutableRawPointer] = []
        for _ in 0..<64 {
            let block = UnsafeMutableRawPointer.allocate(byteCount: 2 << 20, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 2 << 20)
            large.append(block)
            small.append(UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16))
        }
        let grown = try residentBytes()
        XCTAssertGreaterThan(grown - before, 100 << 20, "the blocks were touched")
        for block in large { block.deallocate() }
        MemoryRelease.returnFreedMemory()
        let after = try residentBytes()
        for block in small { block.deallocate() }
        XCTAssertLessThan(after - before, 16 << 20, "freed: \((grown - after) >> 20) MiB of \((grown - before) >> 20) MiB")
    }
}
