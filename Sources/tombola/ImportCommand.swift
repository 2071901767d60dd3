#if canImport(Glibc)
import Glibc
#endif
import App

/// `tombola import FILE [--merge]` previews a spreadsheet of entrants (CSV or TSV) exactly as the
/// host page's import does, without a server: counts, first rows, rejected lines, parse time.
/// Exits 0 when the file is accepted as a whole, 1 when refused, 2 on usage errors.
enum ImportCommand {
    static let usage = "usage: tombola import FILE [--merge]   (CSV or TSV; - reads standard input)"

    static func run(_ arguments: [String]) -> Int32 {
        if CommandHelp.asked(arguments) { return CommandHelp.show(usage) }
        let merge = arguments.contains("--merge")
        let paths = arguments.filter { $0 != "--merge" }
        guard paths.count == 1, let path = paths.first, !path.hasPrefix("-") || path == "-" else {
            printError(usage)
            return 2
        }
        guard let bytes = readAll(path) else {
            printError("tombola import: cannot read \(path)")
            return 2
        }
        let (lines, ok) = EntrantImportSummary.run(bytes, merge: merge)
        for line in lines { print(line) }
        return ok ? 0 : 1
    }

    private static func readAll(_ path: String) -> [UInt8]? {
        let file: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(0, "rb") : fopen(path, "rb")
        guard let file else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes += buffer[0..<count] }
            if count < buffer.count { break }
            if bytes.count > 64 << 20 { return nil }
        }
        guard ferror(file) == 0 else { return nil }
        return bytes
    }

    private static func printError(_ message: String) {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
