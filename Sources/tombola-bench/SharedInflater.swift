import Compression
import Locking
import Posix

/// Inflates permessage-deflate messages for every peer of one loop, the way a phone's browser
/// inflates its own: one zlib stream per generator thread instead of one per message.
///
/// Valid only when the server compresses without context takeover (`server_no_context_takeover`,
/// which Tombola always announces and gorilla/websocket always answers): each message then stands
/// alone, so the stream is reset and reused for the next one, whichever peer it came to. The
/// codec's path (`WebSocketConnection`) made and freed a 45 KB zlib stream per message and copied
/// the text into a `String`; at 200,000 compressed ticks a second that, not the server, was the limit.
/// The output is not checked as UTF-8 (the codec does that); the bench reads `seq` and `at` only.
final class SharedInflater: @unchecked Sendable {
    private static let perLoop = Lock<[ObjectIdentifier: SharedInflater]>([:])

    private let stream: InflateStream
    private var output: [UInt8] = []
    /// Compressed messages inflated by this loop's peers.
    private(set) var messages = 0

    private init(stream: InflateStream) {
        self.stream = stream
    }

    /// The inflater of `loop`'s thread (made on first use); nil if zlib cannot make one.
    static func forLoop(_ loop: EventLoop) -> SharedInflater? {
        perLoop.withLock { table in
            if let made = table[ObjectIdentifier(loop)] { return made }
            guard let stream = try? InflateStream(windowBits: 15) else { return nil }
            let made = SharedInflater(stream: stream)
            table[ObjectIdentifier(loop)] = made
            return made
        }
    }

    /// Inflates one whole compressed message (RFC 7692 §7.2.2: the stripped `00 00 ff ff` tail is
    /// added back) and hands the text to `body`; false for corrupt data or a message over `limit`.
    /// Loop thread only.
    func inflate(_ payload: UnsafeRawBufferPointer, limit: Int, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        stream.reset()
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        do {
            try stream.inflateMessageEnd(payload, into: &output, limit: limit)
        } catch {
            return false
        }
        messages += 1
        output.withUnsafeBytes(body)
        return true
    }
}
