#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which `Host` a request may name and which `Origin` a WebSocket upgrade may come from (DESIGN §12, "Under load and
/// attack"): a page of another site must not read the store, neither through a name of its own that resolves to the
/// server (DNS rebinding: its requests name that name in `Host`) nor through a WebSocket (a browser lets any page open
/// one, and says whose page it is in `Origin`).
///
/// `Host` must name the listen address; on loopback also `localhost` and the loopback literals (`127.0.0.0/8`, `::1`);
/// on a wildcard address (`0.0.0.0`, `::`), which takes connections to any of the machine's addresses, any IP
/// literal and `localhost`; and any name given by `--allow-host`. Its port is not compared (a port forward or proxy
/// may change it). A WebSocket upgrade's `Origin` must be `http://` or `https://` followed by the request's own
/// `Host` (the server's own page), or one given by `--allow-origin`; a client that is not a browser sends no
/// `Origin`, or the `ws://` URL it opened, and is not asked for more.
struct HostPolicy: Sendable {
    /// The listen host, normalized (``normalized(_:)``).
    let listenHost: String
    let allowedHosts: Set<String>
    let allowedOrigins: Set<String>
    private let listenKind: Address

    init(listenHost: String, allowedHosts: [String] = [], allowedOrigins: [String] = []) {
        self.listenHost = Self.normalized(listenHost)
        self.allowedHosts = Set(allowedHosts.map(Self.normalized))
        self.allowedOrigins = Set(allowedOrigins.map { Self.normalizedOrigin($0) })
        listenKind = Address(self.listenHost)
    }

    /// Nil when a request with this `Host` header (nil: none) is answered; else the refusal.
    func refusal(host header: String?) -> ServerError? {
        guard let header, !header.isEmpty else {
            return ServerError(.badRequest, .missingHost, "the request has no Host header")
        }
        guard let name = Self.hostName(ofHeader: header) else {
            return ServerError(.badRequest, .missingHost, "the Host header '\(Self.shown(header))' is not HOST or HOST:PORT")
        }
        if name == listenHost || allowedHosts.contains(name) { return nil }
        let kind = Address(name)
        switch listenKind {
        case .loopback:
            if name == "localhost" || kind == .loopback { return nil }
        case .wildcard:
            if name == "localhost" || kind != .name { return nil }
        case .name, .other:
            break
        }
        return ServerError(.forbidden, .forbiddenHost,
                           "Host '\(Self.shown(header))' is not an address of this server (serve --allow-host \(Self.shown(name)) allows it)")
    }

    /// Nil when a WebSocket upgrade with this `Origin` (nil: none) to a request with this `Host` is taken; else the
    /// refusal.
    func refusal(origin: String?, host: String) -> ServerError? {
        guard let origin else { return nil }
        let normalized = Self.normalizedOrigin(origin)
        if allowedOrigins.contains(normalized) { return nil }
        let authority = host.lowercased()
        if normalized == "http://" + authority || normalized == "https://" + authority { return nil }
        // A `ws:` or `wss:` origin is no page's (a browser sends a page's `http:` or `https:` origin): a client that
        // is not a browser names the URL it opened so (SwiftNIO's WebSocket client does); the host must match.
        for scheme in ["ws://", "wss://"] where normalized.hasPrefix(scheme) {
            if let name = Self.hostName(ofHeader: String(normalized.dropFirst(scheme.count))), name == Self.hostName(ofHeader: host) {
                return nil
            }
        }
        return ServerError(.forbidden, .forbiddenOrigin,
                           "a WebSocket from a page of '\(Self.shown(origin))', not this server's (serve --allow-origin \(Self.shown(origin)) allows it)")
    }

    // MARK: - Names and addresses

    /// A host name as compared: lower-cased, without brackets (`[::1]`) or a trailing dot.
    static func normalized(_ host: String) -> String {
        var h = Substring(host.lowercased())
        if h.hasPrefix("["), h.hasSuffix("]") { h = h.dropFirst().dropLast() }
        if h.hasSuffix("."), h.count > 1 { h = h.dropLast() }
        return String(h)
    }

    /// An origin as compared: lower-cased, without a trailing `/`.
    static func normalizedOrigin(_ origin: String) -> String {
        var o = origin.lowercased()
        if o.hasSuffix("/") { o.removeLast() }
        return o
    }

    /// The host name of a `Host` header (`HOST`, `HOST:PORT`, `[IPV6]:PORT`), normalized; nil when it is none of
    /// them.
    static func hostName(ofHeader header: String) -> String? {
        var text = Substring(header)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            text = text[...close]
        } else if let colon = text.firstIndex(of: ":") {
            guard text[text.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            text = text[..<colon]
        }
        guard !text.isEmpty, text.allSatisfy({ !$0.isWhitespace && $0 != "/" && $0 != "@" }) else { return nil }
        return normalized(String(text))
    }

    /// `text` as shown in a message: at most 200 characters.
    static func shown(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }

    /// What a host names, as far as the server can tell without resolving it.
    enum Address: Equatable {
        /// `localhost`, an IPv4 literal in 127.0.0.0/8, `::1` (or 127.0.0.0/8 mapped into IPv6).
        case loopback
        /// `0.0.0.0` or `::`: every address of the machine.
        case wildcard
        /// Another IP literal.
        case other
        /// A name, to be resolved (`127.evil.example` is one, not an address).
        case name

        init(_ host: String) {
            let host = HostPolicy.normalized(host)
            if host == "localhost" {
                self = .loopback
                return
            }
            var v4 = in_addr()
            if host.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 {
                let bytes = withUnsafeBytes(of: v4) { Array($0) }
                self = bytes[0] == 127 ? .loopback : bytes.allSatisfy { $0 == 0 } ? .wildcard : .other
                return
            }
            var v6 = in6_addr()
            if host.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 {
                let b = withUnsafeBytes(of: v6) { Array($0) }
                let mapped = b[0..<10].allSatisfy { $0 == 0 } && b[10] == 0xFF && b[11] == 0xFF
                if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 || mapped && b[12] == 127 {
                    self = .loopback
                } else {
                    self = b.allSatisfy { $0 == 0 } ? .wildcard : .other
                }
                return
            }
            self = .name
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension ViewLogServer {
    /// Why `host` cannot be given to `--allow-host` (nil: it can): it must be a host name or an IP address, without a
    /// scheme, port or path.
    public static func problem(allowedHost host: String) -> String? {
        let name = HostPolicy.normalized(host)
        if !name.isEmpty, HostPolicy.Address(name) != .name { return nil }
        let characters = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_"
        }
        guard !name.isEmpty, name.utf8.count <= 253, characters, !name.hasPrefix("."), !name.contains("..") else {
            return "expected a host name or an IP address, without a scheme, port or path"
        }
        return nil
    }

    /// Why `origin` cannot be given to `--allow-origin` (nil: it can): it must be an origin as a browser sends it in
    /// `Origin`, `http://HOST[:PORT]` or `https://HOST[:PORT]`, without a path.
    public static func problem(allowedOrigin origin: String) -> String? {
        let expected = "expected SCHEME://HOST[:PORT] (http or https, no path), as a browser sends it in Origin"
        let o = HostPolicy.normalizedOrigin(origin)
        guard let schemeEnd = o.firstRange(of: "://") else { return expected }
        guard ["http", "https"].contains(o[..<schemeEnd.lowerBound]) else { return expected }
        let authority = String(o[schemeEnd.upperBound...])
        guard let name = HostPolicy.hostName(ofHeader: authority), !authority.contains("/"),
              problem(allowedHost: name) == nil else { return expected }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(port) else { return expected }
        }
        return nil
    }
}
