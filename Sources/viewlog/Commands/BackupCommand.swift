import ArgumentParser
@_spi(Engine) import ViewLog

struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store, consistent at one position, while other processes append; print that position.",
        discussion: """
        The copy is LMDB's copy of one read snapshot: it holds the store as it was at one position, every \
        transaction up to it and none after, while appends of other processes go on. DEST must not exist: the copy \
        is made in a temporary sibling directory, flushed to disk and renamed into place, so an error leaves \
        nothing at DEST. With --compact the copy leaves out free pages (a smaller file, more CPU). The copy is a \
        store like any other: it passes 'verify', and a copy of a replica is a replica of the same stream.

        Examples:
          viewlog backup shop shop-backup
          viewlog backup shop /mnt/backups/shop-1 --compact --json
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Argument(help: "The copy's directory; it must not exist.") var dest: String
    @Flag(help: "Leave out free pages: a smaller copy, more CPU.") var compact = false
    @OptionGroup var format: JSONFlag

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let backup = try store.backup(to: dest, compact: compact)
        if format.json {
            Output.standard.line(JSONValue.object([
                ("backup", .string(backup.path)), ("position", .int(Int64(backup.position))),
                ("bytes", .int(Int64(backup.bytes))),
            ]).text)
        } else {
            Output.standard.line("backed up \(store.path) at position \(backup.position) into \(backup.path) (\(backup.bytes) bytes)")
        }
    }
}
