import Foundation
import Testing
import TestSupport
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's notification of writes and removals that the head monitor sleeps on (inotify), alone.
@Suite("File watch")
struct FileWatchTests {
    /// A directory holding one file, `data`.
    private func makeDirectory() throws -> String {
        let directory = try TestScratch.newDirectory("filewatch")
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/data"))
        return directory
    }

    private func append(_ path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("y".utf8))
    }

    @Test func aWriteIsChangedAndNothingIsATimeout() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = FileWatch(directory: directory, fileName: "data")
        #expect(watch.isNotified)
        #expect(watch.wait(timeoutMilliseconds: 0) == .timedOut)
        try append(directory + "/data")
        #expect(watch.wait(timeoutMilliseconds: 60_000) == .changed)
        // Drained: the write is reported once.
        #expect(watch.wait(timeoutMilliseconds: 0) == .timedOut)
        // Another file of the directory is not the watched one.
        try Data("z".utf8).write(to: URL(fileURLWithPath: directory + "/other"))
        try FileManager.default.removeItem(atPath: directory + "/other")
        #expect(watch.wait(timeoutMilliseconds: 0) != .removed)
    }

    @Test(arguments: ["unlink", "rename", "directory"])
    func aRemovalIsRemoved(how: String) throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        defer { try? FileManager.default.removeItem(atPath: directory + ".moved") }
        let watch = FileWatch(directory: directory, fileName: "data")
        // An open descriptor, as LMDB keeps one: the file's own deletion event never comes.
        let fd = open(directory + "/data", O_RDONLY)
        defer { close(fd) }
        switch how {
        case "unlink": try FileManager.default.removeItem(atPath: directory + "/data")
        case "rename": try FileManager.default.moveItem(atPath: directory + "/data", toPath: directory + "/data2")
        default: try FileManager.default.moveItem(atPath: directory, toPath: directory + ".moved")
        }
        #expect(watch.wait(timeoutMilliseconds: 60_000) == .removed)
    }

    @Test func aFileReplacedAtItsPathIsRemoved() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = FileWatch(directory: directory, fileName: "data")
        try Data("new".utf8).write(to: URL(fileURLWithPath: directory + "/data.new"))
        #expect(rename(directory + "/data.new", directory + "/data") == 0)
        #expect(watch.wait(timeoutMilliseconds: 60_000) == .removed)
    }

    @Test func stopWakesTheWaiterForGood() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = FileWatch(directory: directory, fileName: "data")
        watch.stop()
        #expect(watch.wait(timeoutMilliseconds: 60_000) == .stopped)
        #expect(watch.wait(timeoutMilliseconds: 60_000) == .stopped)
        #expect(!watch.pause(milliseconds: 60_000))
    }
}
