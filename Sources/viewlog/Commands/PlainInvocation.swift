import ViewLogDocuments

/// The commands whose whole run is a few milliseconds, in their plain spellings, parsed without ArgumentParser:
///
///     viewlog get STORE ENTITY ID [--json] [--at N]
///     viewlog query STORE VIEW [--json] [--at N] [--limit N] [--offset N]
///     viewlog diff STORE VIEW --from A --to B [--json] [--seq] [--limit N] [--offset N]
///
/// — options in any order among the words, each at most once, numbers as decimal digits. ArgumentParser's parse
/// costs more than the store's own work on these paths (reflection and protocol-conformance scans of a large binary,
/// ~1.5 ms of a ~4 ms `get`: bench/RESULTS-notes.md, its start-up section). Anything else — another option, a word starting
/// with `-` (a negative id, `--`, `-h`, `--help`, `--at=3`), a repeated option, a number that is not plain digits, a
/// view selection with a problem — is `nil` and goes to ArgumentParser, which then parses it and prints its help and
/// errors; so what is accepted here parses there to the same values, and runs the same `run`.
struct PlainInvocation {
    let run: () throws -> Void

    init?(_ arguments: ArraySlice<String>) {
        guard let name = arguments.first else { return nil }
        var words: [String] = []
        var options: [String: String] = [:]
        var json = false, seq = false
        var rest = arguments.dropFirst()
        while let word = rest.popFirst() {  // bounded: each turn takes a word
            if word == "--json" {
                if json { return nil }
                json = true
            } else if word == "--seq" {
                if seq { return nil }
                seq = true
            } else if ["--at", "--limit", "--offset", "--from", "--to"].contains(word) {
                guard options[word] == nil, let value = rest.popFirst(), !value.isEmpty, value.count <= 18,
                      value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
                options[word] = value
            } else if word.hasPrefix("-") {
                return nil
            } else {
                words.append(word)
            }
        }
        let at = options["--at"].map { UInt64($0)! }
        let window = ViewSelection(view: words.count == 2 ? words[1] : nil, limit: options["--limit"].map { Int($0)! },
                                   offset: options["--offset"].map { Int($0)! })
        let ranged = options["--from"] != nil || options["--to"] != nil
        switch name {
        case "get":
            guard words.count == 3, options["--limit"] == nil, options["--offset"] == nil, !seq, !ranged else { return nil }
            run = { try GetCommand.run(store: words[0], entity: words[1], id: words[2], at: at, json: json) }
        case "query":
            guard words.count == 2, window.problem() == nil, !seq, !ranged else { return nil }
            run = { try QueryCommand.run(store: words[0], selection: window, at: at, json: json) }
        case "diff":
            guard words.count == 2, window.problem() == nil, at == nil, let from = options["--from"].map({ UInt64($0)! }),
                  let to = options["--to"].map({ UInt64($0)! }) else { return nil }
            run = { try DiffCommand.run(store: words[0], selection: window, from: from, to: to, seq: seq, json: json) }
        default:
            return nil
        }
    }
}
