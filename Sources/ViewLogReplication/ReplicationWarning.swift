/// Something a replica's user should know that does not stop it: returned by ``Replica/create(at:schema:servers:stream:replicas:)``
/// and ``Replica/join(at:servers:stream:)`` as ``Replica/warnings`` (the CLI prints each on stderr).
public enum ReplicationWarning: Sendable, Hashable, CustomStringConvertible {
    /// The server at `url` names `version` in its `INFO`, older than `required`
    /// (``ReplicationLimits/serverVersionMin``): such servers cannot flush before they acknowledge, or lose
    /// acknowledged writes after some faults (DESIGN §9 "Durability of the stream").
    case oldServer(url: String, version: String, required: String)

    public var description: String {
        switch self {
        case let .oldServer(url, version, required):
            return "the NATS server at \(url) is nats-server \(version), older than \(required): it may lose acknowledged appends when machines lose power (run nats-server >= \(required) with `jetstream { sync_interval: always }`)"
        }
    }

    /// The warning for a server that names `version`, or `nil` when it is recent enough.
    static func forServer(url: String, version: String) -> ReplicationWarning? {
        isVersion(version, olderThan: ReplicationLimits.serverVersionMin)
            ? .oldServer(url: url, version: version, required: ReplicationLimits.serverVersionMin) : nil
    }

    /// Whether the dotted version `version` (`2.9.10`, `2.12.4-beta.1`, a leading `v` allowed) is older than
    /// `minimum`, comparing its numeric parts in order; a pre-release of `minimum` itself is older. A version
    /// that does not parse is treated as old.
    static func isVersion(_ version: String, olderThan minimum: String) -> Bool {
        func parts(_ text: String) -> (numbers: [Int], preRelease: Bool)? {
            var text = Substring(text)
            if text.first == "v" { text = text.dropFirst() }
            let core = text.prefix { $0 != "-" && $0 != "+" }
            let numbers = core.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
            guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else { return nil }
            return (numbers.map { $0! }, text.dropFirst(core.count).first == "-")
        }
        guard let have = parts(version), let need = parts(minimum) else { return true }
        for i in 0..<max(have.numbers.count, need.numbers.count) {
            let a = i < have.numbers.count ? have.numbers[i] : 0
            let b = i < need.numbers.count ? need.numbers[i] : 0
            if a != b { return a < b }
        }
        return have.preRelease && !need.preRelease
    }
}
