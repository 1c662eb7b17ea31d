import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `viewlog upgrade STORE` on the version-1 store made by the format-1 code (`Tests/ViewLogTests/V1Store`).
@Suite("CLI upgrade")
struct UpgradeCLITests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ViewLogTests/V1Store")

    @Test func upgradesAVersion1StoreAndExportsTheSame() throws {
        try #require(CLIProcess.binaryExists, "no viewlog binary at \(CLIProcess.binary): build it with `swift build`")
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/s"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent("data.mdb").path, toPath: store + "/data.mdb")
        let expected = try String(contentsOf: Self.fixture.appendingPathComponent("export.jsonl"), encoding: .utf8)

        let before = try CLIProcess.run(["export", store], directory: directory)
        #expect(before.status == 0 && before.stdout == expected, "a version-1 store reads as before: \(before)")
        let upgraded = try CLIProcess.run(["upgrade", store], directory: directory)
        #expect(upgraded.status == 0 && upgraded.stdout == "upgraded \(store) from log format 1 to \(LogStore.formatVersion)\n", "\(upgraded)")
        let again = try CLIProcess.run(["upgrade", store], directory: directory)
        #expect(again.status == 0 && again.stdout == "\(store) is at log format \(LogStore.formatVersion): nothing to do\n", "\(again)")
        let after = try CLIProcess.run(["export", store], directory: directory)
        #expect(after.status == 0 && after.stdout == expected, "\(after)")
        let verified = try CLIProcess.run(["verify", store], directory: directory)
        #expect(verified.status == 0 && verified.stdout == "ok: 9 transactions, 5 objects\n", "\(verified)")
    }
}
