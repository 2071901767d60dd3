/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) by plain arithmetic.
public enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate for a Unix time in seconds.
    public static func string(forUnixSeconds seconds: Int) -> String {
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = weekdays[((days % 7) + 11) % 7] // 1970-01-01 was a Thursday
        return "\(weekday), \(pad(day)) \(months[month - 1]) \(year) "
            + "\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60)) GMT"
    }

    /// Unix seconds for an IMF-fixdate, or nil if `text` is not one (e.g. `If-Modified-Since`).
    /// The obsolete RFC 850 and asctime forms are not accepted (nil means: ignore the header).
    public static func unixSeconds(from text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20,
              b[16] == 0x20, b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 0x20,
              b[26...].elementsEqual("GMT".utf8),
              weekdays.contains(String(decoding: b[0..<3], as: UTF8.self)),
              let month = months.firstIndex(of: String(decoding: b[8..<11], as: UTF8.self)),
              let day = number(b[5..<7]), let year = number(b[12..<16]),
              let hour = number(b[17..<19]), let minute = number(b[20..<22]), let second = number(b[23..<25]),
              (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = self.days(fromYear: year, month: month + 1, day: day)
        guard civil(fromDays: days) == (year, month + 1, day) else { return nil }
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var n = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { return nil }
            n = n * 10 + Int(byte - 0x30)
        }
        return n
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromYear y: Int, month m: Int, day d: Int) -> Int {
        let y = m <= 2 ? y - 1 : y
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z: Int) -> (year: Int, month: Int, day: Int) {
        let z = z + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
