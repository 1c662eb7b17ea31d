import CNATS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a NATS cluster and its JetStream context: the only owner of the C client's handles.
///
/// The C client's connections and JetStream contexts are safe to use from several threads (nats.c documents
/// them so), hence `@unchecked Sendable`; every handle is created in `connect` and destroyed in `deinit`.
/// Every call is synchronous and bounded by a timeout (``ReplicationLimits``).
final class NATSConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    private let jetStream: OpaquePointer
    /// The server URLs this connection was made with.
    let servers: [String]

    /// Connects to the first reachable server of `servers` (the client then learns the rest of the cluster).
    /// - Throws: ``ReplicationError/unreachable(servers:reason:)`` when none answers.
    init(servers: [String]) throws(ReplicationError) {
        precondition(!servers.isEmpty, "at least one server URL")
        self.servers = servers
        // The C client is loaded here, on the first connection, not at the program's start (Sources/CNATS).
        var reason: UnsafePointer<CChar>?
        guard cnats_load(&reason) == 0 else {
            throw .clientLibraryUnavailable(reason: reason.map { String(cString: $0) } ?? "unknown reason")
        }
        var options: OpaquePointer?
        guard natsOptions_Create(&options) == NATS_OK, let options else {
            throw .unreachable(servers: servers, reason: "cannot allocate client options")
        }
        defer { natsOptions_Destroy(options) }
        var cStrings = servers.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let status: natsStatus = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { urls in
                natsOptions_SetServers(options, urls.baseAddress, Int32(urls.count))
            }
        }
        guard status == NATS_OK else {
            throw .unreachable(servers: servers, reason: NATSConnection.lastError(status))
        }
        natsOptions_SetTimeout(options, ReplicationLimits.connectTimeoutMilliseconds)
        natsOptions_SetNoRandomize(options, true)
        natsOptions_SetAllowReconnect(options, true)
        natsOptions_SetMaxReconnect(options, ReplicationLimits.reconnectAttemptsMax)
        natsOptions_SetReconnectWait(options, ReplicationLimits.reconnectWaitMilliseconds)
        natsOptions_SetPingInterval(options, ReplicationLimits.pingIntervalMilliseconds)
        natsOptions_SetMaxPingsOut(options, 2)
        var nc: OpaquePointer?
        let connected = natsConnection_Connect(&nc, options)
        guard connected == NATS_OK, let nc else {
            throw .unreachable(servers: servers, reason: NATSConnection.lastError(connected))
        }
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = ReplicationLimits.requestTimeoutMilliseconds
        var js: OpaquePointer?
        let made = natsConnection_JetStream(&js, nc, &jsOptions)
        guard made == NATS_OK, let js else {
            natsConnection_Destroy(nc)
            throw .unreachable(servers: servers, reason: NATSConnection.lastError(made))
        }
        connection = nc
        jetStream = js
    }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Close(connection)
        natsConnection_Destroy(connection)
    }

    /// How many times the client reconnected (to the same or another server) since it connected: a replica
    /// checks its head against the stream again whenever this moved (DESIGN §9: a restarted server may have lost
    /// or replaced what it held).
    var reconnects: UInt64 {
        var stats: OpaquePointer?
        guard natsStatistics_Create(&stats) == NATS_OK, let stats else { return 0 }
        defer { natsStatistics_Destroy(stats) }
        guard natsConnection_GetStats(connection, stats) == NATS_OK else { return 0 }
        var count: UInt64 = 0
        guard natsStatistics_GetCounts(stats, nil, nil, nil, nil, &count) == NATS_OK else { return 0 }
        return count
    }

    /// The URL of the server the client is connected to now, if any.
    var connectedURL: String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard natsConnection_GetConnectedUrl(connection, &buffer, buffer.count) == NATS_OK, buffer[0] != 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The version the connected server names in its `INFO` (the C client does not hand it on: a second,
    /// plain TCP connection reads the `INFO` line every server sends first, and closes). `nil` when it cannot be read.
    func serverVersion() -> (url: String, version: String)? {
        guard let url = connectedURL, let (host, port) = NATSConnection.hostAndPort(url),
              let line = NATSConnection.firstLine(host: host, port: port,
                                                  timeoutMilliseconds: ReplicationLimits.connectTimeoutMilliseconds),
              line.hasPrefix("INFO "), let key = NATSConnection.end(of: "\"version\":", in: Substring(line)) else { return nil }
        let rest = line[key...].drop { $0 == " " }
        guard rest.first == "\"" else { return nil }
        let version = rest.dropFirst().prefix { $0 != "\"" }
        return version.isEmpty ? nil : (url, String(version))
    }

    /// `host` and `port` of `nats://host:port` (the scheme and any user info dropped).
    static func hostAndPort(_ url: String) -> (String, UInt16)? {
        var rest = Substring(url)
        if let scheme = NATSConnection.end(of: "://", in: rest) { rest = rest[scheme...] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else { return nil }
        var host = rest[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), port)
    }

    /// The index just past the first occurrence of `needle` in `text`.
    static func end(of needle: String, in text: Substring) -> Substring.Index? {
        var start = text.startIndex
        while start < text.endIndex {
            if text[start...].hasPrefix(needle) { return text.index(start, offsetBy: needle.count) }
            start = text.index(after: start)
        }
        return nil
    }

    /// The first line (up to 16 KiB) a TCP server at `host`:`port` sends, or `nil`.
    static func firstLine(host: String, port: UInt16, timeoutMilliseconds: Int64) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let found else { return nil }
        defer { freeaddrinfo(found) }
        let fd = socket(found.pointee.ai_family, found.pointee.ai_socktype, found.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(timeoutMilliseconds / 1_000), tv_usec: Int(timeoutMilliseconds % 1_000) * 1_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, found.pointee.ai_addr, found.pointee.ai_addrlen) == 0 else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while bytes.count < 16_384 && !bytes.contains(0x0A) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            bytes += buffer[0..<n]
        }
        guard let end = bytes.firstIndex(of: 0x0A) else { return nil }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The client's last error text for this thread, or the status's own text.
    static func lastError(_ status: natsStatus) -> String {
        var s = status
        if let text = nats_GetLastError(&s), text.pointee != 0 { return String(cString: text) }
        return String(cString: natsStatus_GetText(status))
    }

    /// What a stream holds: its description (where ViewLog keeps the schema) and its sequence range.
    struct StreamState: Sendable {
        var description: String
        var firstSeq: UInt64
        var lastSeq: UInt64
        var messages: UInt64
        var leader: String?
    }

    /// A failed JetStream call: the client's status, the server's JetStream error code (0 if none) and text.
    struct CallError: Error, Sendable {
        var status: natsStatus
        var code: Int
        var text: String

        /// The server answered, with a JetStream error (as opposed to a timeout or a lost connection).
        var isJetStreamError: Bool { code != 0 }
        var isTimeoutLike: Bool {
            status == NATS_TIMEOUT || status == NATS_NO_RESPONDERS || status == NATS_CONNECTION_CLOSED
                || status == NATS_CONNECTION_DISCONNECTED || status == NATS_STALE_CONNECTION
        }
    }

    private func callError(_ status: natsStatus, _ code: jsErrCode) -> CallError {
        CallError(status: status, code: Int(code.rawValue), text: NATSConnection.lastError(status))
    }

    /// The stream's state, or `nil` when no stream of that name exists.
    func streamState(_ name: String) throws(CallError) -> StreamState? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        let status = js_GetStreamInfo(&info, jetStream, name, nil, &code)
        if status == NATS_NOT_FOUND || code == JSStreamNotFoundErr { return nil }
        guard status == NATS_OK, let info else { throw callError(status, code) }
        defer { jsStreamInfo_Destroy(info) }
        let description = info.pointee.Config.pointee.Description.map { String(cString: $0) } ?? ""
        let leader = info.pointee.Cluster?.pointee.Leader.map { String(cString: $0) }
        let state = info.pointee.State
        return StreamState(description: description, firstSeq: state.FirstSeq, lastSeq: state.LastSeq,
                           messages: state.Msgs, leader: leader)
    }

    /// Creates a stream on `subject` with file storage, `replicas` copies, a deduplication window of
    /// ``ReplicationLimits/duplicateWindowNanoseconds``, deletes and purges denied (the log is append-only).
    /// `maxMessages`: a limit that removes the oldest messages past it (tests of a stream with limits; `nil`: none).
    /// Creating a stream that exists with the same configuration succeeds (the server makes it idempotent).
    func addStream(_ name: String, subject: String, description: String, replicas: Int,
                   maxMessages: Int64? = nil) throws(CallError) {
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        let status: natsStatus = name.withCString { cName in
            subject.withCString { cSubject in
                description.withCString { cDescription in
                    var subjects: [UnsafePointer<CChar>?] = [cSubject]
                    return subjects.withUnsafeMutableBufferPointer { list in
                        config.Name = cName
                        config.Description = cDescription
                        config.Subjects = list.baseAddress
                        config.SubjectsLen = 1
                        config.Storage = js_FileStorage
                        config.Replicas = Int64(replicas)
                        config.Duplicates = ReplicationLimits.duplicateWindowNanoseconds
                        config.DenyDelete = true
                        config.DenyPurge = true
                        if let maxMessages { config.MaxMsgs = maxMessages }
                        return js_AddStream(&info, jetStream, &config, nil, &code)
                    }
                }
            }
        }
        if let info { jsStreamInfo_Destroy(info) }
        guard status == NATS_OK else { throw callError(status, code) }
    }

    /// A stored message: its stream sequence, payload and `Nats-Msg-Id`.
    struct StoredMessage: Sendable {
        var seq: UInt64
        var data: [UInt8]
        var messageID: String?
    }

    /// The message at `seq` of the stream, or `nil` when there is none.
    func message(_ stream: String, seq: UInt64) throws(CallError) -> StoredMessage? {
        var msg: OpaquePointer?
        var code = jsErrCode(0)
        let status = js_GetMsg(&msg, jetStream, stream, seq, nil, &code)
        if status == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        guard status == NATS_OK, let msg else { throw callError(status, code) }
        defer { natsMsg_Destroy(msg) }
        return StoredMessage(seq: natsMsg_GetSequence(msg), data: NATSConnection.payload(msg),
                             messageID: NATSConnection.header(msg, "Nats-Msg-Id"))
    }

    static func payload(_ msg: OpaquePointer) -> [UInt8] {
        let count = Int(natsMsg_GetDataLength(msg))
        guard count > 0, let data = natsMsg_GetData(msg) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    static func header(_ msg: OpaquePointer, _ key: String) -> String? {
        var value: UnsafePointer<CChar>?
        guard natsMsgHeader_Get(msg, key, &value) == NATS_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The outcome of a publish the server answered.
    enum PublishOutcome: Sendable, Equatable {
        /// Stored at `seq` (`duplicate`: an earlier publish with the same message id was stored there).
        case stored(seq: UInt64, duplicate: Bool)
        /// The stream's last sequence was not the expected one: another writer got there first.
        case wrongLastSequence
    }

    /// Publishes `data` on `subject` with `Nats-Msg-Id` = `messageID` and `Nats-Expected-Last-Sequence` =
    /// `expectedLastSeq` and waits for the acknowledgement. The headers are set on the message itself: the C
    /// client's `jsPubOptions.ExpectLastSeq` treats 0 as "no expectation", and "expect an empty stream" is exactly
    /// what the first transaction needs (the server honours the header `0`).
    /// - Throws: ``CallError`` for anything else (a timeout: the outcome is unknown — retry with the same
    ///   message id, which the server deduplicates).
    func publish(_ data: [UInt8], subject: String, messageID: String, expectedLastSeq: UInt64,
                 expectedStream: String) throws(CallError) -> PublishOutcome {
        var msg: OpaquePointer?
        let created = data.withUnsafeBytes { bytes in
            natsMsg_Create(&msg, subject, nil, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        }
        guard created == NATS_OK, let msg else { throw callError(created, jsErrCode(0)) }
        defer { natsMsg_Destroy(msg) }
        for (key, value) in [("Nats-Msg-Id", messageID), ("Nats-Expected-Stream", expectedStream),
                             ("Nats-Expected-Last-Sequence", String(expectedLastSeq))] {
            let set = natsMsgHeader_Set(msg, key, value)
            guard set == NATS_OK else { throw callError(set, jsErrCode(0)) }
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = ReplicationLimits.publishTimeoutMilliseconds
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(0)
        let status = js_PublishMsg(&ack, jetStream, msg, &options, &code)
        defer { if let ack { jsPubAck_Destroy(ack) } }
        if code == JSStreamWrongLastSequenceErr { return .wrongLastSequence }
        guard status == NATS_OK, let ack else { throw callError(status, code) }
        return .stored(seq: ack.pointee.Sequence, duplicate: ack.pointee.Duplicate)
    }

    /// Publishes raw bytes with no JetStream options (for tests that put a damaged message in a stream).
    func publishRaw(_ data: [UInt8], subject: String) throws(CallError) -> UInt64 {
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(0)
        let status = data.withUnsafeBytes { bytes in
            js_Publish(&ack, jetStream, subject, bytes.baseAddress, Int32(bytes.count), nil, &code)
        }
        defer { if let ack { jsPubAck_Destroy(ack) } }
        guard status == NATS_OK, let ack else { throw callError(status, code) }
        return ack.pointee.Sequence
    }

    /// An ordered consumer of `subject` from stream sequence `startSeq` on: messages in stream order, no
    /// acknowledgements, re-created by the client after a lost connection.
    func orderedSubscription(subject: String, startSeq: UInt64) throws(CallError) -> OrderedSubscription {
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        options.Ordered = true
        options.Config.DeliverPolicy = js_DeliverByStartSequence
        options.Config.OptStartSeq = startSeq
        var sub: OpaquePointer?
        var code = jsErrCode(0)
        let status = js_SubscribeSync(&sub, jetStream, subject, nil, &options, &code)
        guard status == NATS_OK, let sub else { throw callError(status, code) }
        return OrderedSubscription(sub, owner: self)
    }
}

/// A synchronous ordered-consumer subscription; destroyed with the value.
final class OrderedSubscription: @unchecked Sendable {
    private let subscription: OpaquePointer
    /// Keeps the connection alive as long as its subscription.
    private let owner: NATSConnection

    init(_ subscription: OpaquePointer, owner: NATSConnection) {
        self.subscription = subscription
        self.owner = owner
    }

    deinit {
        natsSubscription_Unsubscribe(subscription)
        natsSubscription_Destroy(subscription)
    }

    /// The next message, or `nil` when none came within `timeoutMilliseconds`.
    func next(timeoutMilliseconds: Int64) throws(NATSConnection.CallError) -> NATSConnection.StoredMessage? {
        var msg: OpaquePointer?
        let status = natsSubscription_NextMsg(&msg, subscription, timeoutMilliseconds)
        if status == NATS_TIMEOUT { return nil }
        guard status == NATS_OK, let msg else {
            throw NATSConnection.CallError(status: status, code: 0, text: NATSConnection.lastError(status))
        }
        defer { natsMsg_Destroy(msg) }
        var meta: UnsafeMutablePointer<jsMsgMetaData>?
        guard natsMsg_GetMetaData(&meta, msg) == NATS_OK, let meta else {
            throw NATSConnection.CallError(status: NATS_ERR, code: 0, text: "a delivered message without JetStream metadata")
        }
        defer { jsMsgMetaData_Destroy(meta) }
        return NATSConnection.StoredMessage(seq: meta.pointee.Sequence.Stream, data: NATSConnection.payload(msg),
                                            messageID: NATSConnection.header(msg, "Nats-Msg-Id"))
    }
}
