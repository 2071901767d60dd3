import CLinux
import Foundation
import Glibc

/// `floor`: no server at all. This process accepts N loopback connections from a
/// `floor-reader` child and writes one small WebSocket frame to every socket each tick, on one
/// thread, so the writer's CPU is the kernel's own price of the fan-out (on loopback the
/// receiver's TCP processing runs inline in the sender's system call and is billed to it).
struct FloorCommand {
    static let usage = """
        tombola-bench floor [--connections 10000] [--hz 20] [--seconds 10] [--bytes 40]
                            [--mode write|uring|both] [--sources 8]
            (no server: the kernel's cost of one small write per loopback socket per tick)
        """

    var connections: Int
    var hz: Double
    var seconds: Double
    var frame: [UInt8]
    var modes: [FloorMode]
    var sources: Int
    /// The program started as `floor-reader` (this executable; tests point it at the built one).
    var readerExecutable = WorkerViewers.ownExecutable()

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments)
        connections = try args.int("connections", default: 10_000, range: 1...1_000_000)
        hz = try args.double("hz", default: 20, range: 0.1...1000)
        seconds = try args.double("seconds", default: 10, range: 0.1...3600)
        let bytes = try args.int("bytes", default: 40, range: 2...65539)
        guard let frame = floorFrame(bytes: bytes) else {
            throw .usage("--bytes \(bytes) is no WebSocket frame size with a minimal header; use 2…127 or 130…65539")
        }
        self.frame = frame
        let mode = args.string("mode", default: "both")
        switch mode {
        case "both": modes = [.write, .uring]
        default:
            guard let one = FloorMode(rawValue: mode) else { throw .usage("--mode must be write, uring or both, not '\(mode)'") }
            modes = [one]
        }
        sources = try args.int("sources", default: 8, range: 1...254)
        try args.finish()
    }

    /// One report per mode; with both, the uring report also carries its ratio to write.
    func run() throws(BenchError) -> [Report] {
        let limit = SystemLimits.raiseDescriptorLimit()
        guard connections + 64 <= limit else {
            throw .usage("\(connections) connections need more descriptors than the limit \(limit) allows; use fewer")
        }
        signal(SIGPIPE, SIG_IGN)
        var reports: [Report] = []
        var writeRun: FloorRun?
        for mode in modes {
            var ring: SendRing?
            if mode == .uring {
                do {
                    ring = try SendRing(entries: 256)
                } catch {
                    var report = Report(command: "floor")
                    report.row("mode", mode.rawValue, key: "mode", .string(mode.rawValue))
                    report.row("io_uring", "unavailable: io_uring_setup failed with \(FloorSockets.errorName(error.code))",
                               key: "uringError", .int(Int(error.code)))
                    reports.append(report)
                    continue
                }
            }
            let run = try measure(mode, ring: ring)
            var report = run.report(hz: hz, ringEntries: ring?.entries)
            if mode == .uring, let writeRun {
                let ratio = run.writerCores / writeRun.writerCores
                report.row("uring / write cores", String(format: "%.2f", ratio), key: "uringToWriteCores", .double(ratio))
            }
            if mode == .write { writeRun = run }
            reports.append(report)
        }
        return reports
    }

    /// One mode with a fresh reader child and fresh connections.
    private func measure(_ mode: FloorMode, ring: SendRing?) throws(BenchError) -> FloorRun {
        let (listener, port) = try FloorSockets.listen()
        defer { close(listener) }
        FloorSockets.setNonBlocking(listener)
        let child = try FloorChild(executable: readerExecutable, arguments: FloorReader.arguments(
            port: port, connections: connections, sources: sources, frameBytes: frame.count, deadline: seconds + 60 + Double(connections) / 100))
        defer { child.finish() }

        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        fds.reserveCapacity(connections)
        var ready: (opened: Int, failed: Int, error: Int32)?
        let deadline = FloorSockets.now + 30 + Double(connections) / 200
        while fds.count < (ready?.opened ?? connections) || ready == nil, FloorSockets.now < deadline {
            var polls = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: child.outputFD, events: Int16(POLLIN), revents: 0)]
            guard poll(&polls, 2, 200) >= 0 || clinux_errno() == EINTR else { break }
            while true {
                let fd = accept4(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                guard fd >= 0 else { break }
                FloorSockets.setNoDelay(fd)
                fds.append(fd)
            }
            if ready == nil, polls[1].revents != 0 {
                guard let line = child.output.next() else { break }
                let parts = line.split(separator: " ").compactMap { Int($0) }
                if parts.count == 3 { ready = (parts[0], parts[1], Int32(parts[2])) }
            }
        }
        guard let ready, ready.opened > 0 else {
            throw .failed("the floor reader opened no connection to 127.0.0.1:\(port)"
                          + (ready.map { " (\($0.failed) failed, first with \(FloorSockets.errorName($0.error)))" } ?? ""))
        }
        guard fds.count == ready.opened else {
            throw .failed("accepted \(fds.count) of the reader's \(ready.opened) connections in time")
        }

        child.send("go")
        let totals = FloorSender(fds: fds, frame: frame, hz: hz, seconds: seconds).run(mode, ring: ring)
        child.send("stop \(totals.bytes)")
        let read = child.totals()
        return FloorRun(mode: mode, asked: connections, accepted: fds.count, readerFailed: ready.failed,
                        readerError: ready.error, sent: totals, read: read)
    }
}

/// The `floor-reader` process: its stdin takes `go` and `stop`, its stdout gives `ready` and
/// the totals.
private final class FloorChild {
    private let process = Process()
    private let input: FileHandle
    let output: LineReader
    let outputFD: Int32

    init(executable: String, arguments: [String]) throws(BenchError) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        do { try process.run() } catch { throw .failed("cannot start \(executable) floor-reader: \(error)") }
        input = inputPipe.fileHandleForWriting
        outputFD = outputPipe.fileHandleForReading.fileDescriptor
        output = LineReader(fd: outputFD)
    }

    func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The reader's JSON line (it comes within about 2 s of `stop`), or nil when it died.
    func totals() -> FloorReaderTotals? {
        while let line = output.next() {
            guard line.hasPrefix("{") else { continue }
            return try? JSONDecoder().decode(FloorReaderTotals.self, from: Data(line.utf8))
        }
        return nil
    }

    /// Closes its stdin (it exits on end of file) and waits, killing it after 5 s.
    func finish() {
        try? input.close()
        Subprocess.stop(process, grace: .seconds(5))
    }
}
