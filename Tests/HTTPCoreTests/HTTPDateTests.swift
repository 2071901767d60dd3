import Testing
import HTTPCore

@Suite struct HTTPDateTests {
    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_709_164_799, "Wed, 28 Feb 2024 23:59:59 GMT"),
        (1_709_251_199, "Thu, 29 Feb 2024 23:59:59 GMT"),
        (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func formatsIMFFixdate(seconds: Int, text: String) {
        #expect(HTTPDate.string(forUnixSeconds: seconds) == text)
        #expect(HTTPDate.unixSeconds(from: text) == seconds)
    }

    @Test func roundTripsEveryDayOverFourHundredYears() {
        var seconds = -86_400 * 365 * 30 + 45_296
        while seconds < 86_400 * 146_097 {
            let text = HTTPDate.string(forUnixSeconds: seconds)
            #expect(HTTPDate.unixSeconds(from: text) == seconds, "\(text)")
            if HTTPDate.unixSeconds(from: text) != seconds { break }
            seconds += 86_400 * 7 + 3_601
        }
    }

    @Test(arguments: [
        "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nox 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT ",
    ])
    func rejectsOtherDateForms(text: String) {
        #expect(HTTPDate.unixSeconds(from: text) == nil)
    }
}
