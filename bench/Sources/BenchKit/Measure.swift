import RawLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds.
@inline(__always)
public func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time (user + sys) this process has used so far, in nanoseconds.
public func processCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Nanoseconds `body` takes.
@inline(__always)
public func time(_ body: () throws -> Void) rethrows -> Double {
    let t0 = nowNanoseconds()
    try body()
    return Double(nowNanoseconds() - t0)
}

/// Summary of repeated timings of one operation, in nanoseconds per operation.
public struct Timing: Sendable, Codable {
    /// Median nanoseconds per operation.
    public var medianNs: Double
    /// 10th and 90th percentiles.
    public var p10Ns: Double
    public var p90Ns: Double
    /// Number of timed samples.
    public var samples: Int

    /// Summarizes `samples` (nanoseconds per operation each).
    public init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "no samples")
        let s = samples.sorted()
        func q(_ p: Double) -> Double { s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))] }
        medianNs = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        p10Ns = q(0.1)
        p90Ns = q(0.9)
        self.samples = s.count
    }

    /// Operations per second at the median.
    public var opsPerSecond: Double { 1e9 / medianNs }
}

/// Bytes the heap holds in use (glibc's `mallinfo2().uordblks`, small and large blocks).
public func heapBytesInUse() -> Int {
    Int(rawlmdb_heap_bytes_in_use())
}

/// Peak resident set of this process in bytes (`VmHWM`), or 0 when unknown.
public func peakResidentBytes() -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if s.hasPrefix("VmHWM:") {
            let digits = s.filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
    }
    return 0
}

/// A fresh, empty scratch directory path under `root` (not created).
public func scratchPath(_ root: String, _ name: String) -> String {
    let path = root + "/" + name
    removeTree(path)
    return path
}

/// Removes a file or a directory of plain files (what a store or a database leaves).
public func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if (st.st_mode & S_IFMT) == S_IFDIR, let dir = opendir(path) {
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            removeTree(path + "/" + name)
        }
        closedir(dir)
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// Creates `path` and its parents.
public func makeDirectories(_ path: String) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        prefix += "/" + part
        mkdir(prefix, 0o755)
    }
}

/// Nanoseconds per `fdatasync` of a 4 KiB overwrite at `path` (the floor of one durable commit's flush).
public func measureFlush(path: String, count: Int = 200) -> Timing {
    let fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
    precondition(fd >= 0, "open \(path)")
    defer { close(fd); unlink(path) }
    var page = [UInt8](repeating: 7, count: 4096)
    var samples: [Double] = []
    for i in 0..<count {
        page[0] = UInt8(truncatingIfNeeded: i)
        samples.append(time {
            _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t((i % 16) * 4096)) }
            _ = fdatasync(fd)
        })
    }
    return Timing(samples)
}
