import CHiredis
import Posix

/// One hiredis asynchronous context on one loop: connects, sends commands, hands their
/// replies back in order, and reports once when the connection is gone. The only type that
/// calls hiredis. Loop-confined.
///
/// hiredis owns the socket and the protocol (we never write RESP); the loop only reports
/// readiness, through a `DescriptorWatcher` driven by hiredis's event hooks
/// (`ev.addRead/delRead/addWrite/delWrite/cleanup`). Our code never runs inside hiredis:
/// each reply is copied into a `RedisReply` and delivered after hiredis has returned, so a
/// handler may send, close or drop the connection freely.
final class HiredisConnection {
    typealias ReplyHandler = (Result<RedisReply, RedisError>) -> Void

    private let loop: EventLoop
    private var context: UnsafeMutablePointer<redisAsyncContext>?
    private var watcher: DescriptorWatcher?
    /// Handlers of commands sent and not yet answered, by the id given to hiredis as privdata.
    private var handlers: [UInt: ReplyHandler] = [:]
    private var nextID: UInt = 1
    /// The privdata of subscriptions: hiredis calls it once per message.
    private static let pushID: UInt = 0
    private var pushHandler: ((RedisReply) -> Void)?
    private var onClose: ((RedisError) -> Void)?
    /// Why we are tearing the context down (nil when hiredis did it on a socket error).
    private var closeReason: RedisError?
    private var deliveries: [() -> Void] = []
    private var draining = false
    private var insideHiredis = false
    private var pendingTeardown = false
    private(set) var isClosed = false
    /// hiredis's error text for the last failure, for logs.
    private(set) var lastErrorText: String?

    init(loop: EventLoop) {
        precondition(loop.inEventLoop, "HiredisConnection must be created on its loop")
        self.loop = loop
    }

    deinit {
        // Dropped while connected (the owner forgot to close): detach our hooks first, so
        // hiredis's final callbacks find no object to call into, then free the context.
        guard let context else { return }
        context.pointee.data = nil
        context.pointee.ev.data = nil
        watcher?.cancel()
        redisAsyncFree(context)
    }

    /// Starts a non-blocking connect. Commands may be sent at once; hiredis buffers them.
    /// `onClose` runs once, after the connection is gone (and after every pending handler).
    /// Throws the connect error hiredis reports at once (a refused loopback port, a bad host).
    /// A host name is resolved by hiredis with a blocking `getaddrinfo`: give an address.
    func connect(
        host: String, port: Int,
        onPush: ((RedisReply) -> Void)? = nil,
        onClose: @escaping (RedisError) -> Void
    ) throws(RedisError) {
        precondition(context == nil && !isClosed, "connect called twice")
        guard let context = redisAsyncConnect(host, Int32(port)) else { throw .connectionLost }
        if context.pointee.err != 0 {
            lastErrorText = context.pointee.errstr.map { String(cString: $0) }
            redisAsyncFree(context)
            isClosed = true
            throw .connectionLost
        }
        self.context = context
        self.pushHandler = onPush
        self.onClose = onClose
        let me = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.data = me
        context.pointee.ev.data = me
        watcher = DescriptorWatcher(
            fd: context.pointee.c.fd, loop: loop,
            onReadable: { [unowned self] in self.handle { redisAsyncHandleRead($0) } },
            onWritable: { [unowned self] in self.handle { redisAsyncHandleWrite($0) } },
            onLoopClose: { [unowned self] in self.close(reason: .closed) })
        context.pointee.ev.addRead = { data in HiredisConnection.from(data)?.watcher?.watchRead(true) }
        context.pointee.ev.delRead = { data in HiredisConnection.from(data)?.watcher?.watchRead(false) }
        context.pointee.ev.addWrite = { data in HiredisConnection.from(data)?.watcher?.watchWrite(true) }
        context.pointee.ev.delWrite = { data in HiredisConnection.from(data)?.watcher?.watchWrite(false) }
        context.pointee.ev.cleanup = { data in HiredisConnection.from(data)?.contextWillBeFreed() }
    }

    /// Sends one command (binary-safe arguments). The handler runs exactly once, on the loop,
    /// never inside this call.
    func send(_ arguments: [[UInt8]], handler: @escaping ReplyHandler) {
        guard let context, !pendingTeardown else {
            deliver { handler(.failure(.connectionLost)) }
            return
        }
        let id = nextID
        nextID += 1
        handlers[id] = handler
        let status = Self.withArgv(arguments) { argc, argv, lengths in
            redisAsyncCommandArgv(context, { context, reply, privdata in
                HiredisConnection.replied(context, reply, privdata)
            }, UnsafeMutableRawPointer(bitPattern: id), argc, argv, lengths)
        }
        if status != REDIS_OK {
            handlers[id] = nil
            deliver { handler(.failure(.rejected)) }
        }
    }

    /// Sends SUBSCRIBE (or PSUBSCRIBE, UNSUBSCRIBE…): its confirmations and every later
    /// message go to the `onPush` handler given to `connect`.
    func sendSubscription(_ arguments: [[UInt8]]) {
        guard let context, !pendingTeardown else { return }
        _ = Self.withArgv(arguments) { argc, argv, lengths in
            redisAsyncCommandArgv(context, { context, reply, privdata in
                HiredisConnection.replied(context, reply, privdata)
            }, UnsafeMutableRawPointer(bitPattern: Self.pushID), argc, argv, lengths)
        }
    }

    /// Drops the connection at once. Pending handlers get `.connectionLost` (or whatever
    /// they were already given); `onClose` gets `reason`. Idempotent.
    func close(reason: RedisError) {
        guard context != nil, !isClosed else { return }
        if closeReason == nil { closeReason = reason }
        if insideHiredis {
            pendingTeardown = true
            return
        }
        free()
    }

    // MARK: hiredis plumbing

    private static func from(_ data: UnsafeMutableRawPointer?) -> HiredisConnection? {
        guard let data else { return nil }
        return Unmanaged<HiredisConnection>.fromOpaque(data).takeUnretainedValue()
    }

    private static func replied(
        _ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
        _ privdata: UnsafeMutableRawPointer?
    ) {
        guard let connection = from(context?.pointee.data) else { return }
        let id = UInt(bitPattern: privdata)
        let value = reply.map { RedisReply(copying: $0.assumingMemoryBound(to: redisReply.self)) }
        if id == pushID {
            if let value, let push = connection.pushHandler { connection.deliver { push(value) } }
            return
        }
        guard let handler = connection.handlers.removeValue(forKey: id) else { return }
        let result: Result<RedisReply, RedisError>
        switch value {
        case .none: result = .failure(.connectionLost)
        case .error(let message)?: result = .failure(.server(message))
        case let other?: result = .success(other)
        }
        connection.deliver { handler(result) }
    }

    /// The cleanup hook: hiredis is about to free the context and close its socket (every
    /// pending callback has run). Stop watching the descriptor while it is still open.
    private func contextWillBeFreed() {
        guard let context else { return }
        if lastErrorText == nil, context.pointee.err != 0, let text = context.pointee.errstr {
            lastErrorText = String(cString: text)
        }
        context.pointee.data = nil
        context.pointee.ev.data = nil
        self.context = nil
        isClosed = true
        watcher?.cancel()
        watcher = nil
        let reason = closeReason ?? .connectionLost
        for (_, handler) in handlers { deliver { handler(.failure(.connectionLost)) } }
        handlers = [:]
        pushHandler = nil
        if let onClose {
            self.onClose = nil
            deliver { onClose(reason) }
        }
    }

    private func handle(_ body: (UnsafeMutablePointer<redisAsyncContext>) -> Void) {
        withExtendedLifetime(self) {
            guard let context else { return }
            insideHiredis = true
            body(context)
            insideHiredis = false
            if pendingTeardown, self.context != nil { free() }
            drain()
        }
    }

    private func free() {
        guard let context else { return }
        insideHiredis = true
        redisAsyncFree(context)
        insideHiredis = false
        drain()
    }

    private func deliver(_ delivery: @escaping () -> Void) {
        deliveries.append(delivery)
        if !insideHiredis { drain() }
    }

    private func drain() {
        guard !draining else { return }
        draining = true
        withExtendedLifetime(self) {
            while !deliveries.isEmpty {
                let batch = deliveries
                deliveries = []
                for delivery in batch { delivery() }
            }
        }
        draining = false
    }

    /// Lays the arguments out as hiredis's `argc/argv/argvlen` for the duration of `body`.
    private static func withArgv(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Int32
    ) -> Int32 {
        let total = arguments.reduce(0) { $0 + $1.count }
        var joined = [UInt8]()
        joined.reserveCapacity(total)
        for argument in arguments { joined += argument }
        return joined.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            var pointers: [UnsafePointer<CChar>?] = []
            var lengths: [Int] = []
            pointers.reserveCapacity(arguments.count)
            lengths.reserveCapacity(arguments.count)
            var offset = 0
            for argument in arguments {
                pointers.append((base + offset).assumingMemoryBound(to: CChar.self))
                lengths.append(argument.count)
                offset += argument.count
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    body(Int32(arguments.count), argv.baseAddress!, argvlen.baseAddress!)
                }
            }
        }
    }
}

extension RedisReply {
    /// Copies a hiredis reply tree (RESP2 kinds).
    init(copying reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            self = .bulk(r.str.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(r.len))) } ?? [])
        case REDIS_REPLY_STATUS:
            self = .status(r.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(r.len)), as: UTF8.self) } ?? "")
        case REDIS_REPLY_ERROR:
            self = .error(r.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(r.len)), as: UTF8.self) } ?? "")
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(r.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(Int(r.elements))
            for i in 0..<Int(r.elements) {
                if let element = r.element[i] { elements.append(RedisReply(copying: element)) } else { elements.append(.null) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }
}
