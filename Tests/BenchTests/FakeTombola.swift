import Glibc
import Posix
import Synchronization
import WebSocketCore

/// A small stand-in for the Tombola server on 127.0.0.1, port 0, built from Posix and the
/// server-role codec: `/ws/echo` echoes, `/ws/calc` answers each key with a `display` carrying
/// its `seq`, `/ws/draw/<code>` is one room whose host (key `key`) starts and stops `ticks`
/// ticks at `hz`. Enough protocol to check the bench end to end without the App.
final class FakeTombola: Sendable {
    let group: EventLoopGroup
    let listener: TCPListener
    let room: LoopBound<FakeRoom>
    var port: Int { listener.port }
    /// Ticks the room has sent (read after a run).
    let ticksSent = Counter()

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func increment() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    init(hostKey: String, hz: Int) throws {
        group = try EventLoopGroup(loopCount: 1)
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        let loop = group.loops[0]
        let room = FakeRoom(loop: loop, hostKey: hostKey, hz: hz)
        self.room = LoopBound(room, loop: loop)
        let bound = self.room
        listener.start(on: loop) { connection in
            connection.handler = FakeSession(room: bound.value)
        }
        let counter = ticksSent
        room.sent = { counter.increment() }
    }

    func shutdown() { group.shutdown() }
}

/// The one draw room: viewers, a host, and a tick timer. Loop-confined.
final class FakeRoom {
    let loop: EventLoop
    let hostKey: String
    let hz: Int
    var members: [ObjectIdentifier: FakeSession] = [:]
    var phase = "idle"
    var seq = 0
    var timer: ScheduledTimer?
    var sent: () -> Void = {}

    init(loop: EventLoop, hostKey: String, hz: Int) {
        self.loop = loop
        self.hostKey = hostKey
        self.hz = hz
    }

    func broadcast(_ text: String) {
        let frame = BroadcastFrame(text: text)
        for member in members.values { member.send(frame) }
    }

    func setPhase(_ phase: String) {
        self.phase = phase
        broadcast(#"{"type":"phase","phase":"\#(phase)"}"#)
    }

    func tick() {
        seq += 1
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let at = Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
        broadcast(#"{"type":"tick","seq":\#(seq),"at":\#(at),"value":\#(seq % 500 + 1)}"#)
        sent()
    }

    func start() {
        guard phase == "idle" || phase == "revealed" else { return }
        setPhase("rolling")
        scheduleTick()
    }

    private func scheduleTick() {
        timer = loop.scheduleTimer(after: .milliseconds(1000 / hz)) {
            guard self.phase == "rolling" else { return }
            self.tick()
            self.scheduleTick()
        }
    }

    /// Like the real server: `stopping`, three slower ticks, then `revealed`.
    func stop() {
        guard phase == "rolling" else { return }
        timer?.cancel()
        setPhase("stopping")
        for step in 1...3 {
            loop.scheduleTimer(after: .milliseconds(40 * step)) { self.tick() }
        }
        loop.scheduleTimer(after: .milliseconds(200)) { self.setPhase("revealed") }
    }
}

/// One connection: the upgrade, then the codec and the path's behaviour.
final class FakeSession: ConnectionHandler {
    let room: FakeRoom
    var head: [UInt8] = []
    var path = ""
    var codec: WebSocketConnection?
    weak var connection: TCPConnection?

    init(room: FakeRoom) { self.room = room }

    func send(_ frame: BroadcastFrame) {
        guard var codec else { return }
        let actions = codec.send(frame)
        self.codec = codec
        perform(actions)
    }

    func send(text: String) {
        guard var codec else { return }
        let actions = codec.send(text: text)
        self.codec = codec
        perform(actions)
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        self.connection = connection
        guard var codec else {
            head += bytes
            guard let end = head.indices.dropLast(3).first(where: { head[$0] == 13 && head[$0 + 1] == 10 && head[$0 + 2] == 13 && head[$0 + 3] == 10 })
            else { return }
            let lines = String(decoding: head[..<end], as: UTF8.self).split(separator: "\r\n")
            let request = lines.first?.split(separator: " ") ?? []
            path = request.count > 1 ? String(request[1]) : ""
            let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
            }
            let result = WebSocketHandshake.validate(method: String(request.first ?? ""), version: String(request.last ?? ""),
                                                     headers: headers)
            connection.write(result.responseHead)
            guard result.isAccepted else { connection.close(); return }
            self.codec = WebSocketConnection(role: .server, configuration: .init(pingInterval: nil, idleTimeout: nil), now: .now)
            if path.hasPrefix("/ws/draw/") {
                room.members[ObjectIdentifier(self)] = self
                send(text: #"{"type":"state","code":"BENCH","role":"viewer","phase":"\#(room.phase)","viewers":\#(room.members.count)}"#)
            } else if path == "/ws/calc" {
                send(text: #"{"type":"hello","session":"s"}"#)
                send(text: #"{"type":"display","seq":null,"display":"0"}"#)
            }
            return
        }
        let actions = codec.receive(bytes, now: .now)
        self.codec = codec
        perform(actions)
    }

    private func perform(_ actions: [WebSocketConnection.Action]) {
        guard let connection else { return }
        for action in actions {
            switch action {
            case .write(let bytes): connection.write(bytes)
            case .deliverText(let text): handle(text)
            case .closeAfterWrite: connection.close()
            case .closeNow: connection.closeNow()
            default: break
            }
        }
    }

    private func handle(_ text: String) {
        switch path {
        case "/ws/echo":
            send(text: text)
        case "/ws/calc":
            let seq = text.firstRange(of: #""seq":"#).map { text[$0.upperBound...].prefix { $0.isNumber } } ?? ""
            send(text: #"{"type":"display","seq":\#(seq),"display":"1","expression":"","error":null}"#)
        default:
            if text.contains(#""type":"auth""#) {
                send(text: text.contains(#""key":"\#(room.hostKey)""#) ? #"{"type":"role","role":"host"}"#
                                                                       : #"{"type":"error","code":"bad_key","message":"Wrong key"}"#)
            } else if text.contains(#""type":"start""#) {
                room.start()
            } else if text.contains(#""type":"stop""#) {
                room.stop()
            }
        }
    }

    func closed(_ connection: TCPConnection, error: POSIXError?) {
        room.members[ObjectIdentifier(self)] = nil
    }
}
