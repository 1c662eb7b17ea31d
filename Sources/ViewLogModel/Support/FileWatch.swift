#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for writes to one file, for that file or its directory to go away, or for a timeout: the kernel's
/// notification of file changes (inotify on Linux), which works across processes. Knows nothing of stores.
///
/// One thread calls ``wait(timeoutMilliseconds:)``; any thread may call ``stop()``, which wakes it for good.
/// Writes through `write`/`pwrite` are reported (`IN_MODIFY`), not writes into a shared memory map, and
/// several writes read in one wait are one ``Event/changed``. Elsewhere than Linux there is no notification:
/// every wait times out after at most ``fallbackPollMilliseconds``, and the caller polls.
package final class FileWatch: Sendable {
    /// What ended a wait.
    package enum Event: Equatable {
        /// The file was written (or the kernel's event queue overflowed: something may have been written).
        case changed
        /// The file was removed or renamed, or its directory was (`rm -r`, `mv`): it is no longer at its path.
        case removed
        /// Nothing happened within the timeout.
        case timedOut
        /// ``stop()`` was called.
        case stopped
    }

    /// The longest wait without notification (platforms without inotify, or when inotify is unavailable,
    /// e.g. past `fs.inotify.max_user_instances`).
    static let fallbackPollMilliseconds: Int32 = 10

    private let directory: String
    private let fileName: String
    /// The file's identity when watching started: a file put in its place later is another file.
    private let identity: (device: UInt64, inode: UInt64)?
    /// The inotify descriptor, or -1 without notification.
    private let notifyFD: Int32
    private let fileWatch: Int32
    private let directoryWatch: Int32
    /// A pipe whose read end wakes the waiting thread when ``stop()`` writes into it.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Bytes read from the kernel at once (its events are 16 bytes plus a name of at most `NAME_MAX + 1`).
    private static let eventBufferBytes = 4096
    /// Most reads of the event queue in one wait before it reports what it read (a bound, not a limit met in
    /// practice: the queue is drained by the first read or two).
    private static let drainReadsMax = 64

    /// Watches `directory/fileName`. Never fails: without notification (another platform, no inotify
    /// instance left) every wait times out after ``fallbackPollMilliseconds`` and the caller polls.
    package init(directory: String, fileName: String) {
        self.directory = directory
        self.fileName = fileName
        var st = stat()
        identity = stat(directory + "/" + fileName, &st) == 0 ? (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino)) : nil
        var fds: [Int32] = [-1, -1]
        let piped = fds.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) } == 0
        precondition(piped, "pipe failed: \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        #if os(Linux)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        var file: Int32 = -1, dir: Int32 = -1
        if fd >= 0 {
            file = inotify_add_watch(fd, directory + "/" + fileName, UInt32(IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF))
            dir = inotify_add_watch(fd, directory, UInt32(IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR))
        }
        if fd >= 0 && (file < 0 || dir < 0) {
            close(fd)
            notifyFD = -1
        } else {
            notifyFD = fd
        }
        fileWatch = file
        directoryWatch = dir
        #else
        notifyFD = -1
        fileWatch = -1
        directoryWatch = -1
        #endif
    }

    deinit {
        if notifyFD >= 0 { close(notifyFD) }
        close(wakeRead)
        close(wakeWrite)
    }

    /// Whether the kernel notifies this watch (otherwise every wait is a poll).
    var isNotified: Bool { notifyFD >= 0 }

    /// Blocks until the file is written or removed, ``stop()`` is called, or `timeoutMilliseconds` pass.
    package func wait(timeoutMilliseconds: Int32) -> Event {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if notifyFD >= 0 { fds.append(pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0)) }
        let timeout = notifyFD >= 0 ? timeoutMilliseconds : min(timeoutMilliseconds, Self.fallbackPollMilliseconds)
        let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress!, nfds_t($0.count), timeout) }
        if fds[0].revents != 0 { return .stopped }
        if ready > 0, fds.count > 1, fds[1].revents != 0 {
            let event = drain()
            // A removal shows in the directory's events; check the path, so a rename back or an unrelated
            // file of the same name never counts as the watched file.
            if event == .removed || !isStillAtPath() { return .removed }
            return event
        }
        if !isStillAtPath() { return .removed }
        return ready > 0 ? .changed : .timedOut
    }

    /// Sleeps `milliseconds` without looking at the file (its events wait in the kernel, where repeated ones
    /// merge); `false` when ``stop()`` was called.
    package func pause(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress!, 1, milliseconds) }
        return fds[0].revents == 0
    }

    /// Wakes the waiting thread: its current or next wait returns ``Event/stopped``.
    package func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Whether the file at the path is still the one watched.
    private func isStillAtPath() -> Bool {
        var st = stat()
        guard stat(directory + "/" + fileName, &st) == 0 else { return false }
        guard let identity else { return true }
        return UInt64(truncatingIfNeeded: st.st_dev) == identity.device && UInt64(truncatingIfNeeded: st.st_ino) == identity.inode
    }

    /// Reads every queued event; what they amount to.
    private func drain() -> Event {
        #if os(Linux)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.eventBufferBytes, alignment: 8)
        defer { buffer.deallocate() }
        var result = Event.timedOut
        for _ in 0..<Self.drainReadsMax {
            let n = read(notifyFD, buffer, Self.eventBufferBytes)
            guard n > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let mask = Int32(bitPattern: event.mask)
                if mask & Int32(IN_Q_OVERFLOW) != 0 || mask & Int32(IN_MODIFY) != 0 || mask & Int32(IN_ATTRIB) != 0 {
                    if result == .timedOut { result = .changed }
                }
                if mask & Int32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { result = .removed }
                if event.wd == directoryWatch, mask & Int32(IN_DELETE | IN_MOVED_FROM) != 0, event.len > 0 {
                    let name = String(cString: buffer.advanced(by: offset + header).assumingMemoryBound(to: CChar.self))
                    if name == fileName { result = .removed }
                }
                offset += header + Int(event.len)
            }
            if n < Self.eventBufferBytes { break }
        }
        return result
        #else
        return .changed
        #endif
    }
}
