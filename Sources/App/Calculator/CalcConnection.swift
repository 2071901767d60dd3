import Server
import CalculatorEngine
import Posix

/// One `/ws/calc` socket, confined to its loop: greets with `hello` and a `display`,
/// answers every message (docs/PROTOCOL.md), and hands its session back to the store when
/// the socket closes.
final class CalcConnection {
    /// Weak: a `moved` notice can arrive after the socket is gone.
    private weak var socket: WebSocketSession?
    private let socketID: UInt64
    private let loop: EventLoop
    private let service: CalcService
    /// Set right after init (the store needs `self` as the owner); never nil afterwards.
    private var session: CalcSession!
    private var digitsBudget = DigitsBudget()
    /// Whether a digits request of this socket is being computed (one at a time).
    private var digitsRunning = false

    /// Sets up `socket` (the endpoint's `accept`, on the socket's loop).
    static func accept(_ socket: WebSocketSession, service: CalcService) {
        let connection = CalcConnection(socket: socket, service: service)
        socket.onText = { text in connection.receive(text) }
        socket.onBinary = { _ in connection.send(CalcFrames.error(.badRequest("Calculator messages are JSON text frames"))) }
        socket.onClose = { connection.closed() }
        connection.greet()
    }

    private init(socket: WebSocketSession, service: CalcService) {
        self.socket = socket
        socketID = socket.id
        loop = socket.loop
        self.service = service
        session = service.store.open(owner: owner)
    }

    private var owner: CalcSessionStore.Owner {
        let bound = LoopBound(self, loop: loop)
        return CalcSessionStore.Owner(id: socketID, moved: { id in bound.execute { $0.sessionMoved(id) } })
    }

    private func greet() {
        send(CalcFrames.hello(session: session.id))
        let (display, lastSeq) = session.snapshot()
        send(CalcFrames.display(display, seq: lastSeq))
    }

    func receive(_ text: String) {
        let message: CalcClientMessage
        do {
            message = try CalcClientMessage.decode(text)
        } catch {
            send(CalcFrames.error(error.error, seq: error.seq))
            return
        }
        switch message {
        case .key(let key, let seq):
            let (display, applied) = session.press(key, seq: seq)
            if applied { service.countKeys(1, via: .webSocket) }
            send(CalcFrames.display(display, seq: seq))
        case .mode(let mode):
            let (display, lastSeq) = session.setMode(mode)
            send(CalcFrames.display(display, seq: lastSeq))
        case .angle(let unit):
            let (display, lastSeq) = session.setAngle(unit)
            send(CalcFrames.display(display, seq: lastSeq))
        case .resume(let id):
            guard let resumed = service.store.resume(id: id, owner: owner, releasing: session) else {
                send(CalcFrames.error(.unknownSession))
                return
            }
            session = resumed
            greet()
            if service.store.claimSweep() { service.startSweeping(on: loop) }
        case .digits(let position, let count):
            requestDigits(position: position, count: count)
        }
    }

    /// Computes digits off the loop (on the service's digits queue), so keys stay fast, and
    /// answers on the loop; one request at a time per socket, within its budget.
    private func requestDigits(position: Int, count: Int) {
        guard !digitsRunning else {
            send(CalcFrames.error(.busy))
            return
        }
        if let wait = digitsBudget.spend(position + count - 1, at: .now) {
            let seconds = Int(wait.rounded(.up))
            send(CalcFrames.error(.rateLimited("Too many digits for now; try again in \(seconds) s")))
            return
        }
        digitsRunning = true
        let (value, seq) = session.value()
        let bound = LoopBound(self, loop: loop)
        service.digitsQueue.async {
            let result = CalcDigits.compute(value, position: position, count: count)
            bound.execute { connection in
                connection.digitsRunning = false
                switch result {
                case .success(let digits): connection.send(CalcDigits.frame(digits, seq: seq))
                case .failure(let error): connection.send(CalcFrames.error(error))
                }
            }
        }
    }

    /// Another socket resumed session `id`: if this one still shows it, carry on with a new
    /// session, announced with a fresh `hello` and `display`.
    private func sessionMoved(_ id: String) {
        guard session.id == id, let socket, socket.isOpen else { return }
        session = service.store.open(owner: owner)
        greet()
    }

    private func closed() {
        if service.store.release(session, ownerID: socketID) { service.startSweeping(on: loop) }
    }

    private func send(_ text: String) {
        socket?.send(text: text)
    }
}
