import Dispatch
import Glibc
import WebSocketCore

/// A minimal blocking echo server on 127.0.0.1, port 0, one thread per connection, built only
/// from WebSocketCore so the client is tested against our own codec over real sockets.
final class EchoServer: Sendable {
    let port: Int
    private let listener: Int32

    init(configuration: WebSocketHandshake.Configuration = .init(), maxMessageSize: Int = 1 << 20) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw EchoServerError.setupFailed }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        DispatchQueue.global().async {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                DispatchQueue.global().async {
                    Self.serve(client, configuration: configuration, maxMessageSize: maxMessageSize)
                }
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func serve(_ fd: Int32, configuration: WebSocketHandshake.Configuration, maxMessageSize: Int) {
        defer { close(fd) }
        // An idle connection is closed after two minutes, so a thread never waits forever. Not
        // sooner: `timesOutWhenNothingArrives` needs the server silent and open for longer than
        // the client waits, and under `swift test --parallel` on two loaded cores that test once
        // took 47 s, past the 10 s this was, and read the close instead of its own time-out.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        while headEnd == nil {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer[0..<count]
            headEnd = (0..<max(0, received.count - 3)).first { received[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }
        }
        let lines = String(decoding: received[..<headEnd!], as: UTF8.self).split(separator: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        let result = WebSocketHandshake.validate(method: String(requestLine[0]), version: String(requestLine[2]),
                                                 headers: headers, configuration: configuration)
        write(fd, result.responseHead)
        guard result.isAccepted else { return }
        var connection = WebSocketConnection(
            role: .server, configuration: .init(maxMessageSize: maxMessageSize, deflate: result.deflate), now: .now)
        var input = Array(received[(headEnd! + 4)...])
        while true {
            var actions = connection.receive(input, now: .now)
            var index = 0
            while index < actions.count {
                switch actions[index] {
                case .write(let bytes): write(fd, bytes)
                case .deliverText(let text): actions += connection.send(text: text)
                case .deliverBinary(let bytes): actions += connection.send(binary: bytes)
                case .closeAfterWrite, .closeNow: return
                default: break
                }
                index += 1
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            input = Array(buffer[0..<count])
        }
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
        }
    }
}

enum EchoServerError: Error { case setupFailed }
