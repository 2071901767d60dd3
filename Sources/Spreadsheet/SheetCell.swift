/// One cell of a spreadsheet download (`XLSXWriter`).
public enum SheetCell: Sendable, Equatable {
    case empty
    /// Written as an inline string: never a formula, whatever it begins with (`=`, `+`, `-`, `@`).
    case text(String)
    /// A whole number. Beyond 15 digits a spreadsheet would round it, so it is written as text.
    case integer(Int64)
    case number(Double)
    /// A moment, shown as the wall-clock time at `utcOffsetSeconds` (the server's local time, as
    /// the CSVs give it), formatted `yyyy-mm-dd hh:mm:ss`; the value keeps the milliseconds.
    case time(millis: Int64, utcOffsetSeconds: Int)
}

extension SheetCell {
    /// Excel's serial date: days since 1899-12-30 (so 25,569 is 1970-01-01), in wall-clock time.
    static func serialDay(millis: Int64, utcOffsetSeconds: Int) -> Double {
        Double(millis + Int64(utcOffsetSeconds) * 1000) / 86_400_000 + 25_569
    }
}
