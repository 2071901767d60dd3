import Foundation
import Glibc
import Testing
@testable import tombola_bench

/// `floor` end to end: this test process writes, the built `tombola-bench floor-reader` reads.
@Suite struct FloorCommandTests {
    /// The `tombola-bench` built beside this test bundle (`swift test` builds every product).
    private func builtBench() throws -> String {
        let tests = URL(fileURLWithPath: WorkerViewers.ownExecutable())
        let bench = tests.deletingLastPathComponent().appendingPathComponent("tombola-bench").path
        try #require(FileManager.default.isExecutableFile(atPath: bench), "no tombola-bench at \(bench)")
        return bench
    }

    @Test func everyWriteArrivesInBothModesAndTheCostIsAPositiveNumberOfCores() throws {
        var command = try FloorCommand(["--connections", "50", "--hz", "20", "--seconds", "1", "--mode", "both", "--sources", "4"])
        command.readerExecutable = try builtBench()
        let reports = try command.run()
        #expect(reports.count == 2)
        let runs = try reports.map { report in
            try #require(JSONSerialization.jsonObject(with: Data(report.jsonLine.utf8)) as? [String: Any])
        }
        #expect(runs.first?["mode"] as? String == "write")
        for json in runs {
            // A machine without io_uring reports why instead of figures.
            if json["mode"] as? String == "uring", let code = json["uringError"] as? Int {
                #expect(code > 0)
                continue
            }
            let ticks = try #require(json["ticks"] as? Int)
            #expect(ticks == 20)
            #expect(json["connections"] as? Int == 50)
            #expect(json["writes"] as? Int == 50 * ticks)
            #expect(json["writesCompleted"] as? Int == 50 * ticks)
            #expect(json["messagesReceived"] as? Int == 50 * ticks)
            #expect(json["bytesReceived"] as? Int == 50 * ticks * 40)
            let cores = try #require(json["writerCores"] as? Double)
            #expect(cores > 0 && cores.isFinite)
            #expect((json["writerMicrosPerWrite"] as? Double).map { $0 > 0 } == true)
            // A loaded machine can slow the writer down, never speed it up past the asked rate.
            #expect((json["achievedHz"] as? Double).map { $0 > 0 && $0 <= 20.5 } == true)
        }
    }

    @Test func buildsAValidTextFrameOfExactlyTheAskedSize() throws {
        #expect(floorFrame(bytes: 40) == [0x81, 38] + Array(repeating: UInt8(ascii: "x"), count: 38))
        let long = try #require(floorFrame(bytes: 300))
        #expect(long.count == 300 && Array(long.prefix(4)) == [0x81, 126, 0x01, 0x28])
        #expect(floorFrame(bytes: 128) == nil)
        #expect(throws: BenchError.self) { try FloorCommand(["--bytes", "129"]) }
        #expect(throws: BenchError.self) { try FloorCommand(["--mode", "sendmmsg"]) }
    }
}
