import ArgumentParser
import ViewLog
import ViewLogServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a store over HTTP: the other commands' JSON documents, live views, and an inspector page.",
        discussion: """
        The first line on standard output is 'listening on http://HOST:PORT'. Answers are the documents the \
        other commands print with --json: GET /v1/views, /v1/query, /v1/diff, /v1/log, /v1/objects/ENTITY/ID, \
        /v1/stats, /v1/verify; /v1/watch over a WebSocket or as Server-Sent Events; POST /v1/append \
        (docs/serve.md; GET /openapi.json). The inspector, a page of the log, views, change sets and live mode, is \
        at /. \
        Read-only unless --allow-append, which needs --token-file; a non-loopback --listen needs --token-file, \
        and then every request needs 'Authorization: Bearer TOKEN' (loopback is 'localhost' or a loopback IP \
        literal, never a name). Every request's Host must name the listen address (on loopback also 'localhost' \
        and the loopback literals; on 0.0.0.0 or :: any IP literal), or a host given by --allow-host; a WebSocket \
        from a browser must come from the server's own page, or an origin given by --allow-origin: else 403. \
        Stops on Ctrl-C or SIGTERM, within seconds whatever clients do.

        Examples:
          viewlog serve shop
          viewlog serve shop --listen 127.0.0.1:8080
          viewlog serve shop --allow-append --token-file token.txt
          viewlog serve shop --listen 0.0.0.0:8080 --token-file token.txt
          viewlog serve shop --listen 0.0.0.0:8080 --token-file token.txt --allow-host shop.example.com \\
            --allow-origin https://dashboard.example.com
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "The address to listen on, HOST:PORT (port 0: a free one).") var listen = "127.0.0.1:0"
    @Flag(help: "Take appends: POST /v1/append (needs --token-file).") var allowAppend = false
    @Option(help: "A file holding the bearer token (its first line).") var tokenFile: String?
    @Option(parsing: .unconditional, help: "Documents a watch subscriber may fall behind before it is sent a reload.")
    var watchBuffer: Int = ServerLimits.watchBufferDocumentsDefault
    @Option(help: ArgumentHelp("A host name requests may give in Host besides the listen address (repeatable).", valueName: "HOST"))
    var allowHost: [String] = []
    @Option(help: ArgumentHelp("An origin, SCHEME://HOST[:PORT], whose pages may open a WebSocket (repeatable).", valueName: "ORIGIN"))
    var allowOrigin: [String] = []

    func validate() throws {
        guard (1...ServerLimits.watchBufferDocumentsMax).contains(watchBuffer) else {
            throw ValidationError("--watch-buffer must be 1…\(ServerLimits.watchBufferDocumentsMax)")
        }
        let (host, _) = try Self.hostAndPort(listen)
        if allowAppend, tokenFile == nil { throw ValidationError("--allow-append needs --token-file") }
        if !ViewLogServer.isLoopback(host), tokenFile == nil {
            throw ValidationError("--listen \(listen) is not a loopback address (localhost or a loopback IP literal): give --token-file (every request then needs the token)")
        }
        for name in allowHost {
            if let problem = ViewLogServer.problem(allowedHost: name) { throw ValidationError("--allow-host \(name): \(problem)") }
        }
        for origin in allowOrigin {
            if let problem = ViewLogServer.problem(allowedOrigin: origin) { throw ValidationError("--allow-origin \(origin): \(problem)") }
        }
    }

    /// `HOST:PORT`, `[IPv6]:PORT`.
    static func hostAndPort(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port) else {
            throw ValidationError("--listen expects HOST:PORT, got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("--listen expects HOST:PORT, got '\(text)'") }
        return (host, port)
    }

    func run() async throws {
        let (host, port) = try Self.hostAndPort(listen)
        var options = ViewLogServer.Options()
        options.allowAppend = allowAppend
        options.watchBufferDocuments = watchBuffer
        options.allowedHosts = allowHost
        options.allowedOrigins = allowOrigin
        if let tokenFile {
            let text = try readTextFile(tokenFile)
            guard text.utf8.count <= ServerLimits.tokenBytesMax,
                  let line = text.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: " \t"), !line.isEmpty else {
                throw CLIError("\(tokenFile): expected a token on its first line (at most \(ServerLimits.tokenBytesMax) bytes)")
            }
            options.token = line
            options.tokenForEveryRequest = !ViewLogServer.isLoopback(host)
        }
        // Read-only unless it appends: no writer lock, and other processes append as they like.
        let store = try storeArgument.open(readOnly: !allowAppend)
        let server = ViewLogServer(store: store, options: options)
        let shown = host.contains(":") ? "[\(host)]" : host
        try await server.run(host: host, port: port) { port in
            Output.standard.line("listening on http://\(shown):\(port)")
            Output.standard.flush()
        }
    }
}

extension Substring {
    /// The text without `characters` at either end.
    func trimmingCharacters(in characters: String) -> String {
        var s = self
        while let c = s.first, characters.contains(c) { s = s.dropFirst() }
        while let c = s.last, characters.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
