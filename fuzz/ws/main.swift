// libFuzzer target: WebSocketConnection in the server role (frame parser, reassembly, UTF-8,
// close handling, heartbeats) and the upgrade handshake / extension negotiation.
// Built twice by scripts/fuzz: `ws` (no extension) and `wsdeflate` (-D DEFLATE:
// permessage-deflate negotiated, so RSV1 messages are inflated under the size limit).
//
// Input: byte 0 = control, byte 1 = split seed, then either raw client bytes (control bit 0
// clear) or records the harness turns into masked frames (bit 0 set):
//   [flags: FIN(0x80) RSV1(0x40) COMPRESS(0x20) REPEAT(0x10) | opcode nibble][length][payload…]
// COMPRESS (deflate build) deflates the payload in the harness, REPEAT repeats it 64 times
// first, so valid deflate bombs are easy to reach. Control bit 2 instead feeds the input to
// the handshake validator as header lines.
import Compression

private let maxMessageSize = 4096

private func deflateParameters(_ control: UInt8) -> PerMessageDeflateParameters? {
    #if DEFLATE
    return PerMessageDeflateParameters(
        serverNoContextTakeover: control & 0x10 != 0, clientNoContextTakeover: control & 0x20 != 0,
        serverMaxWindowBits: 8 + Int(control >> 6) * 2, clientMaxWindowBits: 15 - Int(control >> 6))
    #else
    return nil
    #endif
}

/// The frames a client would send for the structured input.
private func frames(from input: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    var i = input.startIndex
    var maskSeed: UInt8 = 1
    while i + 1 < input.endIndex {
        let flags = input[i], length = Int(input[i + 1])
        i += 2
        var payload = Array(input[i..<min(input.endIndex, i + length)])
        i += payload.count
        if flags & 0x10 != 0 { payload = Array(repeating: payload, count: 64).flatMap { $0 } }
        #if DEFLATE
        if flags & 0x20 != 0, let stream = try? DeflateStream(windowBits: 15), let body = try? stream.compressMessage(payload) {
            payload = body
        }
        #endif
        out.append(flags & 0xC0 | flags & 0x0F)
        let key: [UInt8] = [maskSeed, maskSeed &* 3, maskSeed &* 7, maskSeed &* 11]
        maskSeed &+= 1
        if payload.count < 126 {
            out.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(0x80 | 126)
            out.append(UInt8(payload.count >> 8)); out.append(UInt8(payload.count & 0xFF))
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        out.append(contentsOf: key)
        for (n, byte) in payload.enumerated() { out.append(byte ^ key[n & 3]) }
    }
    return out
}

/// What a connection did: the non-write actions in order, and all bytes written.
private struct Transcript: Equatable {
    var events: [WebSocketConnection.Action] = []
    var written: [UInt8] = []
    var failure: WebSocketProtocolError?
    var state: WebSocketConnection.State = .open
}

private func run(_ chunks: [ArraySlice<UInt8>], control: UInt8) -> Transcript {
    let start = ContinuousClock.now
    let configuration = WebSocketConnection.Configuration(
        maxMessageSize: maxMessageSize, pingInterval: .seconds(20), idleTimeout: .seconds(60),
        deflate: deflateParameters(control), compressionThreshold: 16)
    var connection = WebSocketConnection(role: .server, configuration: configuration, now: start, maskingSeed: 7)
    var transcript = Transcript()
    func record(_ actions: [WebSocketConnection.Action]) {
        for action in actions {
            switch action {
            case .write(let bytes):
                transcript.written += bytes
            case .deliverText(let text):
                precondition(text.utf8.count <= maxMessageSize, "text message over the limit")
                transcript.events.append(action)
            case .deliverBinary(let bytes):
                precondition(bytes.count <= maxMessageSize, "binary message over the limit")
                transcript.events.append(action)
            case .deliverPing(let bytes), .deliverPong(let bytes):
                precondition(bytes.count <= 125, "control payload over 125 bytes")
                transcript.events.append(action)
            case .closeAfterWrite, .closeNow:
                precondition(connection.state == .closed, "close action while not closed")
                transcript.events.append(action)
            case .deliverClose:
                transcript.events.append(action)
            }
        }
    }
    for chunk in chunks { record(connection.receive(chunk, now: start)) }
    // Echo what arrived (exercises the compressing send path), then time passes.
    for event in transcript.events {
        if case .deliverText(let text) = event { record(connection.send(text: text)) }
        if case .deliverBinary(let bytes) = event { record(connection.send(binary: bytes)) }
    }
    record(connection.tick(now: start + .seconds(21)))
    record(connection.tick(now: start + .seconds(61)))
    if connection.state == .closed {
        precondition(connection.receive([0x81, 0x80, 0, 0, 0, 0], now: start).isEmpty, "input after close")
    }
    transcript.failure = connection.failure
    transcript.state = connection.state
    return transcript
}

private func fuzzHandshake(_ bytes: ArraySlice<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    var headers: [(name: String, value: String)] = [
        ("Host", "example.test"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
        ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ]
    for line in text.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
    }
    let configuration = WebSocketHandshake.Configuration(
        allowedOrigins: ["https://allowed.test"], subprotocols: ["tombola"],
        deflate: PerMessageDeflateConfiguration())
    let result = WebSocketHandshake.validate(method: "GET", version: "HTTP/1.1", headers: headers, configuration: configuration)
    if result.isAccepted {
        // An accepted request never came from a foreign origin.
        let origins = headers.filter { $0.name.lowercased() == "origin" }.map { $0.value }
        for origin in origins {
            precondition(WebSocketHandshake.originIsAllowed(String(HTTPTokens.trim(origin)), host: "example.test",
                                                            allowList: ["https://allowed.test"]), "foreign origin accepted")
        }
        if let deflate = result.deflate {
            precondition((8...15).contains(deflate.serverMaxWindowBits) && (8...15).contains(deflate.clientMaxWindowBits),
                         "window bits out of range")
        }
    }
    _ = result.responseHead
    _ = try? PerMessageDeflate.acceptResponse([text])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let control = data[0], splitSeed = data[1]
    let input = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    if control & 4 != 0 {
        fuzzHandshake(input[...])
        return 0
    }
    let bytes = control & 1 != 0 ? frames(from: input[...]) : input
    let whole = run([bytes[...]], control: control)
    var chunks: [ArraySlice<UInt8>] = []
    var state = UInt32(splitSeed) &* 2_654_435_761 | 1
    var start = 0
    while start < bytes.count {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        let n = min(bytes.count - start, Int(state % 24) + 1)
        chunks.append(bytes[start..<start + n])
        start += n
    }
    let split = run(chunks, control: control)
    precondition(whole == split, "outcome depends on how the bytes arrive")
    return 0
}
