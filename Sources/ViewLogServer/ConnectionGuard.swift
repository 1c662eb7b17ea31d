import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// What every connection of the server is held to before a request reaches a route (DESIGN §12, "Under load and
/// attack"): its `Host` and, on a WebSocket upgrade, its `Origin` (``HostPolicy``); the bounds of its URL, headers
/// and body; a timeout on a request that does not arrive; and an end on shutdown whatever the client does.
struct ConnectionPolicy: Sendable {
    var hosts: HostPolicy
    /// Longest a client may take to send a request's head, or stay silent within its body, or sit idle between
    /// requests.
    var requestTimeout: TimeAmount
    /// Longest a connection stays open once the server shuts down.
    var shutdownGrace: TimeAmount
}

/// A server child channel (Hummingbird's HTTP/1.1 with a WebSocket upgrade) with the guards of ``ConnectionPolicy``
/// in its pipeline: ``RequestGuard`` right after the HTTP parser, where it sees each request head before the
/// WebSocket upgrade and the routes do, and ``ShutdownDeadline`` first, where it stays after an upgrade.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let policy: ConnectionPolicy

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let policy = self.policy
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(ShutdownDeadline(grace: policy.shutdownGrace), position: .first)
            let parser = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestGuard(policy: policy), position: .after(parser))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Closes its connection ``ConnectionPolicy/shutdownGrace`` after the server starts to shut down
/// (`ChannelShouldQuiesceEvent`), if it is still open: a client that does not read its stream (its writes wait for
/// room that never comes) or does not answer a WebSocket close cannot hold the server up. Bytes pass through
/// untouched; it stays in the pipeline after a WebSocket upgrade.
final class ShutdownDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer  // never unwrapped: any data passes through as it is
    private let grace: TimeAmount
    private var deadline: Scheduled<Void>?

    init(grace: TimeAmount) { self.grace = grace }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, deadline == nil {
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: grace) {
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension ShutdownDeadline: Sendable {}

/// Checks each request head, and answers a bad one itself with DESIGN §12's JSON error before any route or the
/// WebSocket upgrade sees it, then closes the connection: 414 for a URL over ``ServerLimits/urlBytesMax``, 400 for a
/// missing `Host`, 403 for a `Host` or a WebSocket `Origin` of another site (``HostPolicy``), 431 for header fields
/// over ``ServerLimits/headerBytesMax`` or ``ServerLimits/headerFieldsMax`` (and for a head over
/// ``ServerLimits/headBytesMax``, which the parser refuses), 400 for what is not HTTP/1.1.
///
/// It bounds the rest of a connection's life too:
/// - a body over ``ServerLimits/requestBodyBytesMax`` (chunked too) reaches the route only up to one part past the
///   bound (the route refuses it with a 413), the rest is dropped, and the connection is closed after the answer;
/// - a request whose head does not arrive within ``ConnectionPolicy/requestTimeout``, or whose body stays silent that
///   long, and a connection idle that long between requests, are closed;
/// - on shutdown, a connection with no request under way is closed at once.
/// After a WebSocket upgrade (its `101` passes by) it leaves the pipeline.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let policy: ConnectionPolicy
    /// A request's head was passed on and its end not yet.
    private var reading = false
    /// Requests passed on whose answer has not ended.
    private var answersOwed = 0
    /// The request under way was refused, or its body went over its bound: its parts are dropped.
    private var dropping = false
    /// Close once the answer under way has ended (a body went over its bound).
    private var closeAfterAnswer = false
    private var closed = false
    /// A request head was passed on (the WebSocket upgrader has seen a request).
    private var forwardedHead = false
    /// The handlers after this one were told that no more input comes.
    private var inputEnded = false
    /// Closed for output, reading (and dropping) what the client still sends (``close(_:lingering:)``).
    private var lingering = false
    /// The `101` of a WebSocket upgrade was written: the handler leaves at the next flush.
    private var upgraded = false
    private var bodyBytes = 0
    private var timeout: Scheduled<Void>?

    init(policy: ConnectionPolicy) { self.policy = policy }

    // MARK: Inbound

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armTimeout(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimeout(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !forwardedHead {
            // A connection that ends before its first request reached the WebSocket upgrader: the upgrader, still
            // waiting for one, is told that none comes (else it fails as removed before it had a request, and
            // Hummingbird logs an error).
            endInput(context)
        }
        closed = true
        lingering = false
        timeout?.cancel()
        timeout = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closed {
            if lingering { context.read() }  // dropped, and the next asked for (nothing after this handler reads now)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let refusal = refusal(of: head) {
                dropping = true
                refuse(refusal, context: context)
                return
            }
            dropping = false
            forwardedHead = true
            reading = true
            bodyBytes = 0
            answersOwed += 1
            armTimeout(context)
            context.fireChannelRead(data)
        case .body(let part):
            if dropping { return }
            armTimeout(context)
            bodyBytes += part.readableBytes
            if bodyBytes > ServerLimits.requestBodyBytesMax {
                // This part takes the route's collector past its bound (it answers 413); later ones are dropped, and
                // the connection is closed after the answer rather than the rest of the body read.
                dropping = true
                closeAfterAnswer = true
                context.fireChannelRead(data)
                if answersOwed == 0 { close(context, lingering: true) }
                return
            }
            context.fireChannelRead(data)
        case .end:
            if dropping { return }
            reading = false
            if answersOwed > 0 { disarmTimeout() } else { armTimeout(context) }
            context.fireChannelRead(data)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if closed { return }
        if let e = error as? HTTPParserError {
            dropping = true
            if e == .headerOverflow {
                refuse(ServerError(.requestHeaderFieldsTooLarge, .headersTooLarge,
                                   "the request head (its URL and header fields) is larger than \(ServerLimits.headBytesMax) bytes, or has more than \(ServerLimits.headerFieldsMax) fields"),
                       context: context)
            } else {
                refuse(ServerError(.badRequest, .serveHTTP, "the request is not HTTP/1.1 (\(e))"), context: context)
            }
            return
        }
        if error is ByteToMessageDecoderError { return }  // what the parser says of the bytes after its error
        context.fireErrorCaught(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !reading, answersOwed == 0 {
            close(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Why a request with `head` is refused, if it is.
    private func refusal(of head: HTTPRequestHead) -> ServerError? {
        if head.uri.utf8.count > ServerLimits.urlBytesMax {
            return ServerError(.uriTooLong, .uriTooLong,
                               "the request URL is \(head.uri.utf8.count) bytes, longer than \(ServerLimits.urlBytesMax)")
        }
        let hosts = head.headers["Host"]
        if hosts.count > 1 { return ServerError(.badRequest, .missingHost, "the request has \(hosts.count) Host headers") }
        if let refusal = policy.hosts.refusal(host: hosts.first) { return refusal }
        if head.headers["Upgrade"].contains(where: { $0.lowercased().contains("websocket") }) {
            let origins = head.headers["Origin"]
            if origins.count > 1 { return ServerError(.forbidden, .forbiddenOrigin, "the request has \(origins.count) Origin headers") }
            if let refusal = policy.hosts.refusal(origin: origins.first, host: hosts.first ?? "") { return refusal }
        }
        if head.headers.count > ServerLimits.headerFieldsMax {
            return ServerError(.requestHeaderFieldsTooLarge, .headersTooLarge,
                               "the request has \(head.headers.count) header fields, more than \(ServerLimits.headerFieldsMax)")
        }
        let bytes = head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        if bytes > ServerLimits.headerBytesMax {
            return ServerError(.requestHeaderFieldsTooLarge, .headersTooLarge,
                               "the request's header fields are \(bytes) bytes, more than \(ServerLimits.headerBytesMax)")
        }
        return nil
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .switchingProtocols:
            // A WebSocket: no more HTTP on this connection. This handler leaves at the flush that sends the `101`
            // (leaving here would lose that flush: `writeAndFlush` flushes through the handler that wrote).
            upgraded = true
            disarmTimeout()
            context.write(data, promise: promise)
        case .head, .body:
            context.write(data, promise: promise)
        case .end:
            answersOwed = max(0, answersOwed - 1)
            if closeAfterAnswer, answersOwed == 0 {
                let written = context.eventLoop.makePromise(of: Void.self)
                if let promise { written.futureResult.cascade(to: promise) }
                context.writeAndFlush(data, promise: written)
                written.futureResult.assumeIsolated().whenComplete { _ in self.close(context, lingering: true) }
                return
            }
            context.write(data, promise: promise)
            if answersOwed == 0, !reading { armTimeout(context) }
        }
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if upgraded { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    // MARK: Answers and ends

    /// Answers `error` (with `Connection: close`), then closes. When an answer to an earlier request is still under
    /// way (a client that pipelines), closes after it instead, without a second answer.
    private func refuse(_ error: ServerError, context: ChannelHandlerContext) {
        guard answersOwed == 0 else {
            closeAfterAnswer = true
            return
        }
        closeAfterAnswer = true
        answersOwed += 1  // this answer: the connection is not idle until it is written
        var body = context.channel.allocator.buffer(capacity: error.body.utf8.count + 1)
        body.writeString(error.body)
        body.writeString("\n")
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: error.status.code))
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        head.headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in self.close(context, lingering: true) }
    }

    /// Closes the connection. The handlers after this one are told first that no more input comes (the WebSocket
    /// upgrader, which waits for a request, then ends without an error; Hummingbird's request loop ends).
    ///
    /// `lingering` (after an answer to a request whose body may still be coming): the answer goes out first, with the
    /// end of the output, and what the client still sends is read and dropped for up to
    /// ``ServerLimits/closeLingerSeconds`` before the connection closes — closed with unread input, the kernel would
    /// reset it and drop the answer unsent.
    private func close(_ context: ChannelHandlerContext, lingering: Bool = false) {
        guard !closed else { return }
        closed = true
        disarmTimeout()
        guard lingering else {
            endInput(context)
            context.close(promise: nil)
            return
        }
        self.lingering = true
        context.close(mode: .output, promise: nil)
        context.read()
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(Int64(ServerLimits.closeLingerSeconds))) {
            self.timeout = nil
            self.endInput(context)
            context.close(promise: nil)
        }
    }

    /// Tells the handlers after this one, once, that no more input comes.
    private func endInput(_ context: ChannelHandlerContext) {
        guard !inputEnded else { return }
        inputEnded = true
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    private func armTimeout(_ context: ChannelHandlerContext) {
        guard !closed else { return }
        timeout?.cancel()
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: policy.requestTimeout) {
            self.timeout = nil
            self.close(context)
        }
    }

    private func disarmTimeout() {
        timeout?.cancel()
        timeout = nil
    }
}

@available(*, unavailable)
extension RequestGuard: Sendable {}
