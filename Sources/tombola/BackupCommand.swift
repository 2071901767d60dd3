#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Storage

/// `tombola backup --data DIR FILE` copies a (possibly running) server's database to FILE;
/// `tombola restore --data DIR FILE` brings such a copy back into an empty data directory.
/// Exit codes: 0 done, 1 the copy failed (nothing was overwritten), 2 bad usage.
enum BackupCommand {
    static func run(_ arguments: [String], restore: Bool) -> Int32 {
        let name = restore ? "restore" : "backup"
        let usage = "usage: tombola \(name) --data DIR FILE   (DIR defaults to $TOMBOLA_DATA, else ./tombola-data)"
        var data = ProcessInfo.processInfo.environment["TOMBOLA_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "./tombola-data"
        var files: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                print(usage)
                return 0
            } else if argument == "--data" {
                guard index < arguments.count else { return fail(usage, status: 2) }
                data = arguments[index]
                index += 1
            } else if argument.hasPrefix("--data=") {
                data = String(argument.dropFirst("--data=".count))
            } else if argument.hasPrefix("-") && argument != "-" {
                return fail("tombola \(name): unknown option '\(argument)'\n\(usage)", status: 2)
            } else {
                files.append(argument)
            }
        }
        guard files.count == 1, !data.isEmpty else { return fail(usage, status: 2) }
        let database = (data as NSString).appendingPathComponent(StorageQueue.fileName)
        do {
            let summary: DatabaseBackup.Summary
            if restore {
                try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
                summary = try DatabaseBackup.restore(from: files[0], to: database)
                print("tombola restore: \(files[0]) → \(database): \(describe(summary)). Start the server to use it.")
                // The copy holds no key (docs/DEPLOY.md): without the old signing key, records signed by
                // it no longer verify against this server's key (docs/FAIRNESS.md §17).
                print("Copy signing.key (and signing-rotations.json, seed.key) from the old data directory into this one first:"
                      + " without it the server makes a new signing key, and the records signed by the old one"
                      + " fail `tombola verify` against it.")
            } else {
                summary = try DatabaseBackup.backup(from: database, to: files[0])
                print("tombola backup: \(database) → \(files[0]): \(describe(summary))")
            }
            return 0
        } catch let error as StorageError {
            return fail("tombola \(name): \(error.detail.isEmpty ? error.description : error.detail)", status: 1)
        } catch {
            return fail("tombola \(name): cannot create \(data)", status: 1)
        }
    }

    private static func describe(_ summary: DatabaseBackup.Summary) -> String {
        "\(summary.draws) draws, \(summary.records) records, schema version \(summary.schemaVersion), \(summary.bytes) bytes"
    }

    private static func fail(_ message: String, status: Int32) -> Int32 {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        return status
    }
}
