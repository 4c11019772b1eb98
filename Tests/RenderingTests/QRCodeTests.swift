import Foundation
import Testing
@testable import Rendering

@Suite("R4 QR code PNG")
struct QRCodeTests {
    @Test func urlsKeepTheirCase() throws {
        let lower = try QRCode("http://Example.test/join/01234")
        let upper = try QRCode("HTTP://EXAMPLE.TEST/JOIN/01234")
        #expect(lower.modules != upper.modules, "case-sensitive encoding (NOTES: casesensitive = 1)")
        #expect(lower.size >= 21 && (lower.size - 21) % 4 == 0, "a QR version's side is 21 + 4n modules")
    }

    @Test func pngHasAQuietZoneAndCrispModulesAtLeast300Pixels() throws {
        let code = try QRCode("http://192.168.1.20:8080/join/12345")
        let png = try code.png(minimumPixels: 320)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == height && width >= 320)
        #expect(width % (code.size + 8) == 0, "an integer scale per module keeps edges crisp")
        #expect(png[24] == 8 && png[25] == 0, "8-bit grayscale")
    }

    /// R4: what a phone's camera reads is exactly the join URL (zbarimg from zbar-tools, .ci/apt-test.txt, reads it).
    @Test func thePngDecodesToExactlyTheJoinUrl() throws {
        for url in ["http://192.168.1.20:8080/join/01234", "https://Party.Example.test/join/99999"] {
            let png = try QRCode(url).png(minimumPixels: 320)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png")
            try Data(png).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
            process.arguments = ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", file.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let decoded = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0 && decoded == url + "\n", "decoded \(decoded.debugDescription)")
        }
    }

    @Test func grayscaleEncodingKeepsItsSizeAndFormat() throws {
        let pixels = [UInt8](repeating: 255, count: 4 * 3)
        let png = try PNGImage.grayscale(pixels: pixels, width: 4, height: 3)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "the PNG signature")
        #expect(Array(png[12..<16]) == Array("IHDR".utf8), "the header chunk comes first")
        #expect(png[16..<20].reduce(0) { $0 << 8 | Int($1) } == 4 && png[20..<24].reduce(0) { $0 << 8 | Int($1) } == 3,
                "width and height as given")
        #expect(png[24] == 8 && png[25] == 0, "8-bit grayscale")
        #expect(Array(png.suffix(8).prefix(4)) == Array("IEND".utf8), "and it ends with IEND")
    }
}
