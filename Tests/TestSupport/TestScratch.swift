import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One scratch directory per test process, `$TMPDIR/viewlog-tests-<pid>`, under which tests make their stores:
/// it is removed when the process exits — whether its tests passed or failed — so a `swift test` run leaves nothing
/// behind. Roots left by processes that died without exit handlers (an exit test's trapping child, a crash) are
/// removed when the parent test process exits, or by the next run.
public enum TestScratch {
    /// The root of this process's scratch directories (made on first use).
    public static var root: String {
        _ = installed
        return rootPath
    }

    /// A new path under ``root`` (not created) whose last component starts with `prefix`.
    public static func newPath(_ prefix: String = "store") -> String {
        root + "/\(prefix)-\(UUID().uuidString)"
    }

    /// A new, empty directory under ``root``.
    public static func newDirectory(_ prefix: String = "scratch") throws -> String {
        let path = newPath(prefix)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static let rootPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("viewlog-tests-\(getpid())").path

    private static let installed: Void = {
        removeRootsOfDeadProcesses()
        try? FileManager.default.createDirectory(atPath: rootPath, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(atPath: TestScratch.rootPath)
            // Also the roots of child processes that ended without exit handlers (exit tests that trap).
            TestScratch.removeRootsOfDeadProcesses()
        }
    }()

    private static func removeRootsOfDeadProcesses() {
        let tmp = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: tmp.path) else { return }
        for name in names where name.hasPrefix("viewlog-tests-") {
            guard let pid = Int32(name.dropFirst("viewlog-tests-".count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: tmp.appendingPathComponent(name).path)
            }
        }
    }
}
