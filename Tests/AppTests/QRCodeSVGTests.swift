import Testing
@testable import App
@testable import Server

@Suite struct QRCodeSVGTests {
    @Test func rendersAnSVGWithDarkModulesForAURL() throws {
        let svg = try #require(QRCodeSVG.render("http://192.168.1.20:8080/watch/K7QX2M"))
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>"))
        // A version-3 symbol or larger: 29+ modules plus 8 of quiet zone.
        let viewBox = try #require(svg.firstRange(of: "viewBox=\"0 0 "))
        let side = Int(svg[viewBox.upperBound...].prefix { $0.isNumber })!
        #expect(side >= 29 + 8)
        // The three finder patterns (ISO/IEC 18004 §6.3.3) are drawn: each has an edge of exactly
        // 7 dark modules, framed by its light separator, at the top-left, top-right and bottom-left.
        let width = side - 8
        #expect(svg.contains("M4 4h7v1h-7z"))
        #expect(svg.contains("M\(4 + width - 7) 4h7v1h-7z"))
        #expect(svg.contains("M4 \(4 + width - 1)h7v1h-7z"))
    }

    @Test func sameTextGivesSameSymbolAndOtherTextDiffers() {
        #expect(QRCodeSVG.render("abc") == QRCodeSVG.render("abc"))
        #expect(QRCodeSVG.render("abc") != QRCodeSVG.render("abd"))
    }

    @Test(arguments: ["", String(repeating: "x", count: QRCodeSVG.maximumTextLength + 1), "a\u{0}b"])
    func refusesEmptyOversizeOrNULText(_ text: String) {
        #expect(QRCodeSVG.render(text) == nil)
    }
}
