import Foundation

/// A generated square cover as PNG: a diagonal colour gradient with up to two initials in block letters.
/// The iOS app cannot decode SVG, so every generated cover is served as PNG too.
public enum CoverArt {
    public static func png(hue: Int, initials: String, size: Int = 300) throws(PNGImage.EncodingError) -> [UInt8] {
        let start = rgb(hue: Double(hue % 360), saturation: 0.7, lightness: 0.55)
        let end = rgb(hue: Double((hue + 60) % 360), saturation: 0.7, lightness: 0.30)
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        for y in 0..<size {
            for x in 0..<size {
                let t = Double(x + y) / Double(2 * max(1, size - 1))
                let offset = (y * size + x) * 3
                for channel in 0..<3 {
                    pixels[offset + channel] = UInt8((start[channel] + (end[channel] - start[channel]) * t).rounded())
                }
            }
        }
        drawInitials(Array(initials.prefix(2)), into: &pixels, size: size)
        return try PNGImage.rgb(pixels: pixels, width: size, height: size)
    }

    /// White block letters at 90 % opacity, centred.
    private static func drawInitials(_ characters: [Character], into pixels: inout [UInt8], size: Int) {
        let glyphs = characters.compactMap(BlockFont.glyph)
        guard !glyphs.isEmpty else { return }
        let columns = glyphs.count * BlockFont.width + (glyphs.count - 1)
        let scale = max(1, min(size * 6 / 10 / columns, size / 2 / BlockFont.height))
        let left = (size - columns * scale) / 2
        let top = (size - BlockFont.height * scale) / 2
        for (index, rows) in glyphs.enumerated() {
            for (row, line) in rows.enumerated() {
                for (column, mark) in line.enumerated() where mark == "#" {
                    let x0 = left + (index * (BlockFont.width + 1) + column) * scale
                    let y0 = top + row * scale
                    for y in y0..<(y0 + scale) {
                        for x in x0..<(x0 + scale) {
                            let offset = (y * size + x) * 3
                            for channel in 0..<3 {
                                let under: Double = Double(pixels[offset + channel]), white: Double = 255 * 0.9
                                pixels[offset + channel] = UInt8((under * 0.1 + white).rounded())
                            }
                        }
                    }
                }
            }
        }
    }

    /// HSL (hue in degrees, saturation and lightness 0…1) to RGB 0…255.
    static func rgb(hue: Double, saturation: Double, lightness: Double) -> [Double] {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue / 60
        let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double)
        switch sector {
        case ..<1: (r, g, b) = (chroma, second, 0)
        case ..<2: (r, g, b) = (second, chroma, 0)
        case ..<3: (r, g, b) = (0, chroma, second)
        case ..<4: (r, g, b) = (0, second, chroma)
        case ..<5: (r, g, b) = (second, 0, chroma)
        default: (r, g, b) = (chroma, 0, second)
        }
        let match = lightness - chroma / 2
        return [r, g, b].map { min(255, max(0, ($0 + match) * 255)) }
    }
}
