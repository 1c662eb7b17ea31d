import Foundation
import Testing

/// What the README promises of platforms (issue 38) matches the manifest: Linux with Debian's liblmdb-dev is tested,
/// macOS with Homebrew's lmdb should work because the system library names it, iOS cannot.
@Suite("Platforms")
struct PlatformsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theReadmesPlatformsMatchTheManifest() throws {
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]"#))
        #expect(manifest.contains(#"pkgConfig: "lmdb""#))
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### Platforms").dropFirst().first?
            .components(separatedBy: "\n## ").first, "the README has no Platforms section")
        for promise in ["**tested**", "`liblmdb-dev`", "**should work, untested**", "`brew install lmdb pkg-config`",
                        #"`.brew(["lmdb"])`"#, "**cannot work**", "no system LMDB"] {
            #expect(section.contains(promise), "the README's Platforms section does not say \(promise)")
        }
    }
}
