import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

#if canImport(Glibc)
import Glibc
#endif

/// Limits and resources: regular expressions cannot hang a view, the map grows, store files
/// are private. Disk-full and over-long input lines are checked at CLI level (`viewlogTests`).
@Suite("Limits")
struct LimitsTests {
    // MARK: MATCHES cannot hang a view

    /// Patterns a backtracking matcher would take too long on, or would need a subject bound for: the linear-time
    /// matcher runs them on any string.
    @Test(arguments: [
        ".*a.*b.*c.*d.*e",
        String(repeating: "a?", count: 30) + String(repeating: "a", count: 30),
        String(repeating: "(x|y)", count: 25),
    ])
    func patternsWithManyWaysToMatchRunInLinearSteps(pattern: String) throws {
        let matcher = try RegexMatcher(pattern, options: [])
        let subject = String(repeating: "a", count: 4096)
        var steps = 0
        _ = matcher.matches(subject, steps: &steps)
        let size = try RegexMatcher.compile(pattern, caseless: false).count
        #expect(steps <= size * 4096)
    }

    /// Found by the predicate fuzzer: `{0, 2, 13, …}` (digits, commas, spaces) once scanned as a counted quantifier
    /// whose upper count saturated at Int.max, and `max − 0 + 1` overflowed. Huge counts are refused, not trapped on.
    @Test(arguments: ["a{0, 2, 13,15,  17,, 2, 3, 43, 4, 5, 6, 7, 8, 9, 71, 113, 43, 4, 5, 6, 7, 8, 9, 71, 11}",
                      "a{0,99999999999999999999999999}", "a{99999999999999999999999999,}", "a{,99999999999999999999}b*"])
    func hugeCountedQuantifiersDoNotTrap(pattern: String) {
        _ = RegexMatcher.refusal(of: pattern)
        _ = Fixture.error("name MATCHES \(PredicateOperand.quoted(pattern))")
    }

    @Test func theProgramSizeIsBounded() throws {
        let justUnder = "a{\(Limits.regexProgramSizeMax - 2)}"
        #expect(RegexMatcher.refusal(of: justUnder) == nil)
        #expect(RegexMatcher.refusal(of: "a{\(Limits.regexProgramSizeMax)}") != nil)
        #expect(RegexMatcher.refusal(of: "(a{64}){64}") != nil)
        #expect(RegexMatcher.refusal(of: "(a{60}){60}") == nil)
    }

    // MARK: Store files

    @Test func storeFilesAreOwnerOnly() throws {
        // The umask only ever removes bits, so under the usual 022 a mode of 0755 or 0644 would show here.
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])], author: "t")
        func mode(_ path: String) -> mode_t {
            var st = stat()
            #expect(stat(path, &st) == 0, "stat \(path)")
            return st.st_mode & 0o777
        }
        #expect(mode(store.path) == 0o700)
        #expect(mode(store.path + "/data.mdb") == 0o600)
        #expect(mode(store.path + "/lock.mdb") == 0o600)
    }

    // MARK: A full disk

    /// In a child process (the limit is process-wide): with a file size limit and SIGXFSZ ignored, write()
    /// fails with EFBIG, as on a full disk. The append throws a storage error, the store is as it was, and once
    /// there is room again the same process appends. (The CLI's error is tested in `viewlogTests`.)
    @Test func anAppendThatCannotWriteChangesNothingAndTheStoreRecovers() async {
        await #expect(processExitsWith: .success) {
            let store = try makeStore(options: StoreOptions(durable: true))
            for i in 0..<5 {
                try store.append([.insert(entity: "Employee", id: .string("e\(i)"), values: ["name": .string("N")])], author: "t")
            }
            var st = stat()
            guard stat(store.path + "/data.mdb", &st) == 0 else { exit(2) }
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
            let saved = limit
            limit.rlim_cur = rlim_t(st.st_size)
            guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else { exit(3) }
            let big = String(repeating: "x", count: 512 * 1024)
            do {
                try store.append([.insert(entity: "Employee", id: .string("big"), values: ["name": .string(big)])], author: "t")
                exit(4)  // the write should have failed
            } catch let error {
                guard case .storage(let message)? = error as? StoreError, message.contains("cannot write the store") else { exit(5) }
            }
            guard try store.head == 5, try store.verify().isOK, try store.object(employee("big")) == nil else { exit(6) }
            var raised = saved
            guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &raised) == 0 else { exit(7) }
            try store.append([.insert(entity: "Employee", id: .string("big"), values: ["name": .string(big)])], author: "t")
            guard try store.head == 6, try store.verify().isOK else { exit(8) }
            let reopened = try LogStore.open(at: store.path)
            guard try reopened.head == 6 else { exit(9) }
        }
    }

    // MARK: The map grows by itself

    @Test func theMapGrowsByItself() throws {
        let store = try makeStore(options: StoreOptions(durable: false, mapSizeBytes: 1 << 20))
        let big = String(repeating: "x", count: 64 * 1024)
        for i in 0..<40 {  // ~2.5 MiB of log and objects in a 1 MiB map
            try store.append([.insert(entity: "Employee", id: .string("e\(i)"), values: ["name": .string(big)])], author: "t")
        }
        #expect(store.environment.mapGrowCount >= 1)
        #expect(store.environment.mapSizeBytes > 1 << 20)
        #expect(try store.head == 40)
        #expect(try store.verify().isOK)
    }
}
