import Foundation
import Testing
@_spi(Engine) @testable import ViewLog

#if canImport(Glibc)
import Glibc
#endif

/// Limits and resources (issue #7, point 4): regular expressions cannot hang a view, the map grows, store files
/// are private. Disk-full and over-long input lines are checked at CLI level (`viewlogTests`).
@Suite("Limits")
struct LimitsTests {
    // MARK: MATCHES cannot hang a view

    /// Without a subject bound this evaluation tries ~4096³/6 ≈ 10¹⁰ splits (about 12 minutes; 11 s already at
    /// 1,000 bytes): the time limit turns such a regression into a failure rather than a stuck CI job.
    @Test(.timeLimit(.minutes(1)))
    func polynomialBacktrackingIsBounded() throws {
        let pattern = ".*a.*a.*b"
        let analysis = RegexMatcher.analyze(pattern)
        #expect(analysis.refusal == nil)
        #expect(analysis.subjectBytesMax >= Limits.regexSubjectBytesMin)
        #expect(analysis.subjectBytesMax < 100)
        let long = Fixture.values(name: String(repeating: "a", count: Limits.regexSubjectBytesMax))
        #expect(try !Fixture.eval("name MATCHES '\(pattern)'", long))
        // At the bound the worst case is tried in full, and still finishes.
        let atBound = Fixture.values(name: String(repeating: "a", count: analysis.subjectBytesMax))
        #expect(try !Fixture.eval("name MATCHES '\(pattern)'", atBound))
        let matching = Fixture.values(name: String(repeating: "a", count: analysis.subjectBytesMax - 1) + "b")
        #expect(try Fixture.eval("name MATCHES '\(pattern)'", matching))
    }

    @Test func theSubjectBoundFollowsTheNumberOfWaysToMatch() {
        func bound(_ p: String) -> Int { RegexMatcher.analyze(p).subjectBytesMax }
        // One quantifier: linear, the general limit applies.
        #expect(bound("a*") == Limits.regexSubjectBytesMax)
        #expect(bound("[A-Z][a-z]+") == Limits.regexSubjectBytesMax)
        #expect(bound("a*+b*+c*+d*+e*+") == Limits.regexSubjectBytesMax)  // possessive: one way each
        // Each further unbounded quantifier lowers the bound.
        #expect(bound(".*a.*b") < Limits.regexSubjectBytesMax)
        #expect(bound(".*a.*a.*b") < bound(".*a.*b"))
        #expect(bound("(?:x|y|z).*a.*b") < bound(".*a.*b"))  // alternatives multiply
        #expect(bound(".{0,3}a.*b") > bound(".*a.*b"))      // a bounded count is not the subject's length
        // The bound is the largest length whose step count fits the budget.
        for p in [".*a.*b", ".*a.*a.*b", "x?y?z?.*", "(a|b|c)[0-9]{2,40}.*"] {
            let b = bound(p)
            #expect(b >= Limits.regexSubjectBytesMin && b <= Limits.regexSubjectBytesMax, "\(p)")
        }
    }

    @Test(arguments: [
        ".*a.*b.*c.*d.*e",                                                      // five unbounded quantifiers
        String(repeating: "a?", count: 30) + String(repeating: "a", count: 30),  // 2³⁰ ways: exponential
        String(repeating: "(x|y)", count: 25),                                  // 2²⁵ alternatives
    ])
    func tooManyWaysToMatchIsRefused(pattern: String) {
        let error = Fixture.error("name MATCHES \(PredicateOperand.quoted(pattern))")
        #expect(error?.message.contains("is refused: it could backtrack for too long") == true, "\(String(describing: error))")
    }

    /// Found by the predicate fuzzer: `{0, 2, 13, …}` (digits, commas, spaces) scans as a counted quantifier
    /// whose upper count saturates at Int.max, and `max − 0 + 1` overflowed.
    @Test(arguments: ["a{0, 2, 13,15,  17,, 2, 3, 43, 4, 5, 6, 7, 8, 9, 71, 113, 43, 4, 5, 6, 7, 8, 9, 71, 11}",
                      "a{0,99999999999999999999999999}", "a{99999999999999999999999999,}", "a{,99999999999999999999}b*"])
    func hugeCountedQuantifiersDoNotTrap(pattern: String) {
        let analysis = RegexMatcher.analyze(pattern)
        #expect(analysis.refusal != nil || analysis.subjectBytesMax >= Limits.regexSubjectBytesMin)
        _ = Fixture.error("name MATCHES \(PredicateOperand.quoted(pattern))")
    }

    @Test func aSubjectOverTheBoundDoesNotMatch() throws {
        let pattern = ".*x.*"
        let b = RegexMatcher.analyze(pattern).subjectBytesMax
        #expect(try Fixture.eval("name MATCHES '\(pattern)'", Fixture.values(name: "x" + String(repeating: "a", count: b - 1))))
        #expect(try !Fixture.eval("name MATCHES '\(pattern)'", Fixture.values(name: "x" + String(repeating: "a", count: b))))
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
