import ArgumentParser
import ViewLog

struct UpgradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Upgrade a store of an older log format to the current one (checksummed object rows and metadata).",
        discussion: """
        The store must verify first; the upgrade is one write, so it is done completely or not at all. \
        A store already at the current format is left as it is.

        Examples:
          viewlog upgrade shop
        """
    )

    @OptionGroup var storeArgument: StoreArgument

    func run() throws {
        let store = try storeArgument.open()
        let was = try store.upgrade()
        if was < LogStore.formatVersion {
            Output.standard.line("upgraded \(store.path) from log format \(was) to \(LogStore.formatVersion)")
        } else {
            Output.standard.line("\(store.path) is at log format \(was): nothing to do")
        }
    }
}
