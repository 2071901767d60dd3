import CLinux
import Foundation
import Glibc

/// What a `floor-reader` child read while the writer was sending.
struct FloorReaderTotals: Codable {
    var cpuSeconds: Double = 0
    var bytes: Int = 0
    var messages: Int = 0
    var closedEarly: Int = 0
}

/// `floor-reader` (hidden): the receiving side of `floor`, in its own process. Opens N
/// connections to 127.0.0.1:port from 127.0.0.1…K, prints `ready <opened> <failed> <errno>`,
/// then reads every socket from one epoll set. On `go` it starts its CPU clock; on
/// `stop <bytes>` it reads until that many bytes have arrived (or 2 s pass), prints its
/// `FloorReaderTotals` as one JSON line and exits. It also exits when stdin closes or after
/// `--deadline` seconds, so it never outlives its writer.
struct FloorReader {
    var port: Int
    var connections: Int
    var sources: Int
    var frameBytes: Int
    var deadline: Double

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments)
        port = try args.int("port", default: 0, range: 1...65535)
        connections = try args.int("connections", default: 1, range: 1...1_000_000)
        sources = try args.int("sources", default: 8, range: 1...254)
        frameBytes = try args.int("bytes", default: 40, range: 1...1_000_000)
        deadline = try args.double("deadline", default: 600, range: 1...86_400)
        try args.finish()
    }

    /// Arguments that start a reader for this writer.
    static func arguments(port: Int, connections: Int, sources: Int, frameBytes: Int, deadline: Double) -> [String] {
        ["floor-reader", "--port", String(port), "--connections", String(connections), "--sources", String(sources),
         "--bytes", String(frameBytes), "--deadline", String(Int(deadline.rounded(.up)))]
    }

    func run() throws(BenchError) {
        let exitAt = FloorSockets.now + deadline
        SystemLimits.raiseDescriptorLimit()
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .failed("epoll_create1: \(FloorSockets.errorName(clinux_errno()))") }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = 0
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, 0, &event)

        var open = 0
        var failed = 0
        var firstError: Int32 = 0
        for index in 0..<connections {
            let fd = FloorSockets.connect(port: port, source: index % sources + 1)
            if fd < 0 {
                failed += 1
                if firstError == 0 { firstError = -fd }
                continue
            }
            FloorSockets.setNonBlocking(fd)
            event.events = EPOLLIN.rawValue
            event.data.fd = fd
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
            open += 1
        }
        emit("ready \(open) \(failed) \(firstError)")

        var totals = FloorReaderTotals()
        var cpuAtGo = SystemLimits.ownCPUSeconds
        var expected: Int?
        var stopAt = exitAt
        var command: [UInt8] = []
        let capacity: Int32 = 1024
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer {
            events.deallocate()
            buffer.deallocate()
        }
        reading: while FloorSockets.now < min(exitAt, stopAt) {
            if let expected, totals.bytes >= expected { break }
            let count = epoll_wait(epoll, events, capacity, 100)
            guard count >= 0 else {
                if clinux_errno() == EINTR { continue }
                break
            }
            for i in 0..<Int(count) {
                let fd = events[i].data.fd
                let got = read(fd, buffer, 64 * 1024)
                if fd == 0 {
                    guard got > 0 else { break reading }
                    command += UnsafeRawBufferPointer(start: buffer, count: got)
                    while let newline = command.firstIndex(of: 10) {
                        let line = String(decoding: command[..<newline], as: UTF8.self)
                        command.removeFirst(newline + 1)
                        let parts = line.split(separator: " ")
                        if parts.first == "go" {
                            cpuAtGo = SystemLimits.ownCPUSeconds
                        } else if parts.first == "stop" {
                            expected = parts.count > 1 ? Int(parts[1]) : 0
                            stopAt = FloorSockets.now + 2
                        }
                    }
                } else if got > 0 {
                    totals.bytes += got
                } else if got == 0 || clinux_errno() != EAGAIN {
                    _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event)
                    close(fd)
                    totals.closedEarly += 1
                }
            }
        }
        totals.cpuSeconds = SystemLimits.ownCPUSeconds - cpuAtGo
        totals.messages = totals.bytes / frameBytes
        if let data = try? JSONEncoder().encode(totals) { emit(String(decoding: data, as: UTF8.self)) }
    }
}
