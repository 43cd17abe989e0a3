// Parses a body of tiny JSON values the size of a route's byte cap with StrictJSON and prints the time and the
// growth of peak RSS. Built by parse_memory.sh together with the StrictJSON sources of a chosen commit.
import Glibc

func peakKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

// batch-objects: {"names":[{"a":1},…]} of 12.67 MB; batch-numbers: [1,1,…] of 12.67 MB;
// feedback-objects: {"items":[{"a":1},…]} of 116.6 MB. The value cap is the route's `ValueCaps` entry.
let shape = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "batch-objects"
let feedback = shape == "feedback-objects"
let size = feedback ? 116_600_000 : 12_670_000
let cap = feedback ? 2 * (2 + 1000 * 58) + 16 : 2 * (1 + 1 + 1000 + 2) + 16
var body: [UInt8] = []
body.reserveCapacity(size + 16)
if shape == "batch-numbers" {
    body.append(UInt8(ascii: "["))
    while body.count + 3 < size { body.append(contentsOf: [UInt8(ascii: "1"), UInt8(ascii: ",")]) }
    body.append(contentsOf: [UInt8(ascii: "1"), UInt8(ascii: "]")])
} else {
    body.append(contentsOf: Array((feedback ? #"{"items":["# : #"{"names":["#).utf8))
    let item = Array(#"{"a":1},"#.utf8)
    while body.count + item.count + 2 < size { body.append(contentsOf: item) }
    body.append(contentsOf: Array(#"{"a":1}]}"#.utf8))
}
let before = peakKiB()
let start = now()
var outcome = ""
do {
    #if VALUE_CAP
    let value = try JSONParser.parse(body, maxValues: cap)
    #else
    let value = try JSONParser.parse(body)
    #endif
    if case .object(let fields) = value { outcome = "an object of \(fields.count)" }
    if case .array(let items) = value { outcome = "an array of \(items.count)" }
} catch {
    outcome = "refused: \(error)"
}
let milliseconds = Int((now() - start) * 1000)
print("\(shape): \(body.count) bytes, \(outcome), \(milliseconds) ms, peak RSS +\((peakKiB() - before) / 1024) MiB")
