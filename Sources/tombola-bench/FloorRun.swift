import Foundation

/// One `floor` mode's figures, as a report.
struct FloorRun {
    var mode: FloorMode
    var asked: Int
    var accepted: Int
    var readerFailed: Int
    var readerError: Int32
    var sent: FloorSendTotals
    /// Nil when the reader died before reporting.
    var read: FloorReaderTotals?

    var writerCores: Double { sent.cpuSeconds / sent.wallSeconds }

    func report(hz: Double, ringEntries: Int?) -> Report {
        let perWrite = sent.cpuSeconds / Double(max(1, sent.attempted)) * 1e6
        let achieved = Double(sent.ticks) / sent.wallSeconds
        let expected = accepted * sent.ticks
        var report = Report(command: "floor")
        report.row("mode", mode.rawValue + (ringEntries.map { " (ring of \($0))" } ?? ""), key: "mode", .string(mode.rawValue))
        if let ringEntries { report.field("ringEntries", .int(ringEntries)) }
        report.row("connections", "\(accepted) of \(asked)" + (readerFailed > 0 ? " (\(readerFailed) failed: \(FloorSockets.errorName(readerError)))" : ""),
                   key: "connections", .int(accepted))
        report.field("connectFailed", .int(readerFailed))
        report.row("rate", String(format: "%g Hz asked, %.2f Hz achieved", hz, achieved), key: "hz", .double(hz))
        report.field("achievedHz", .double(achieved))
        report.row("sending period", Format.seconds(sent.wallSeconds) + " (\(sent.ticks) ticks)", key: "seconds", .double(sent.wallSeconds))
        report.field("ticks", .int(sent.ticks))
        report.row("writes", "\(sent.attempted) attempted, \(sent.completed) complete", key: "writes", .int(sent.attempted))
        report.field("writesCompleted", .int(sent.completed))
        report.row("incomplete", "\(sent.wouldBlock) EAGAIN, \(sent.short) short, \(sent.failed) failed", key: "wouldBlock", .int(sent.wouldBlock))
        report.field("shortWrites", .int(sent.short))
        report.field("failedWrites", .int(sent.failed))
        report.row("writer CPU (sending thread)", Format.seconds(sent.cpuSeconds), key: "writerCpuSeconds", .double(sent.cpuSeconds))
        report.row("writer cores", String(format: "%.3f", writerCores), key: "writerCores", .double(writerCores))
        report.row("writer per write", String(format: "%.2f µs", perWrite), key: "writerMicrosPerWrite", .double(perWrite))
        if let read {
            let perMessage = read.cpuSeconds / Double(max(1, read.messages)) * 1e6
            report.row("reader received", "\(read.messages) of \(expected) messages (\(read.bytes) bytes)", key: "messagesReceived", .int(read.messages))
            report.field("messagesExpected", .int(expected))
            report.field("bytesReceived", .int(read.bytes))
            report.row("reader CPU", Format.seconds(read.cpuSeconds), key: "readerCpuSeconds", .double(read.cpuSeconds))
            report.row("reader per message", String(format: "%.2f µs", perMessage), key: "readerMicrosPerMessage", .double(perMessage))
            report.row("reader closed early", String(read.closedEarly), key: "readerClosedEarly", .int(read.closedEarly))
        } else {
            report.row("reader", "died before reporting", key: "messagesReceived", .null)
        }
        return report
    }
}
