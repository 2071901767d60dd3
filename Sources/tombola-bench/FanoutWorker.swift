import Foundation
import Glibc

/// Line-at-a-time reads from a pipe.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next line without its newline; nil at end of file.
    func next() -> String? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += chunk[0..<count]
        }
    }
}

/// Viewers in child processes (`tombola-bench fanout-worker`), for more viewers than one
/// process may hold descriptors. Each child prints `ready <opened> <failed>` when its viewers
/// have connected, waits for `stop <first> <last>` on stdin, then prints its `ViewerTotals` as
/// one JSON line.
final class WorkerViewers: ViewerSide {
    private var children: [(process: Process, input: FileHandle, output: LineReader)] = []

    /// With `targets`, child i connects its viewers to `targets[i % targets.count]` (a cluster's instances).
    init(options: ViewerOptions, processes: Int, targets: [BenchTarget] = []) throws(BenchError) {
        let executable = WorkerViewers.ownExecutable()
        var first = 0
        for i in 0..<processes {
            let count = options.viewers / processes + (i < options.viewers % processes ? 1 : 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            let target = targets.isEmpty ? nil : targets[i % targets.count]
            process.arguments = Array(options.workerArguments(viewers: count, firstIndex: first, target: target).dropFirst(0))
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            do { try process.run() } catch { throw .failed("cannot start a worker process: \(error)") }
            children.append((process, input.fileHandleForWriting, LineReader(fd: output.fileHandleForReading.fileDescriptor)))
            first += count
        }
    }

    static func ownExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func waitReady() -> (Int, Int) {
        var opened = 0
        var failed = 0
        for child in children {
            guard let line = child.output.next() else { continue }
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "ready" {
                opened += Int(parts[1]) ?? 0
                failed += Int(parts[2]) ?? 0
            }
        }
        return (opened, failed)
    }

    func finish(first: Int?, last: Int?) -> ViewerTotals {
        let command = "stop \(first.map(String.init) ?? "-") \(last.map(String.init) ?? "-")\n"
        for child in children { try? child.input.write(contentsOf: Data(command.utf8)) }
        var totals = ViewerTotals()
        for child in children {
            while let line = child.output.next() {
                guard line.hasPrefix("{") else { continue }
                if let part = try? JSONDecoder().decode(ViewerTotals.self, from: Data(line.utf8)) { totals.merge(part) }
                break
            }
        }
        return totals
    }

    func close() {
        for child in children {
            try? child.input.close()
            child.process.waitUntilExit()
        }
        children = []
    }
}

/// `fanout-worker` (hidden): one child process's share of the viewers.
struct FanoutWorker {
    var options: ViewerOptions
    var firstIndex: Int

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["deflate"])
        options = try ViewerOptions(&args, viewersName: "count")
        firstIndex = try args.int("first-index", default: 0)
        try args.finish()
    }

    func run() throws(BenchError) {
        SystemLimits.raiseDescriptorLimit()
        let viewers = try InProcessViewers(options: options, firstIndex: firstIndex)
        let (opened, failed) = viewers.waitReady()
        emit("ready \(opened) \(failed)")
        let input = LineReader(fd: 0)
        var first: Int?
        var last: Int?
        while let line = input.next() {
            let parts = line.split(separator: " ")
            guard parts.first == "stop" else { continue }
            if parts.count == 3 {
                first = Int(parts[1])
                last = Int(parts[2])
            }
            break
        }
        let totals = viewers.finish(first: first, last: last)
        if let data = try? JSONEncoder().encode(totals) { emit(String(decoding: data, as: UTF8.self)) }
        viewers.close()
    }
}
