import Foundation

/// A generated cover per demo song: a colour gradient with the title's initials (SVG for the pages; the same
/// design as PNG, rendered by the app with `CoverArt`, for the iOS app, which cannot decode SVG).
public enum DemoCover {
    /// The cover's hue and initials.
    public static func design(number: Int) -> (hue: Int, initials: String)? {
        guard let song = DemoCatalog.song(number: number) else { return nil }
        return ((number * 47) % 360, song.title.split(separator: " ").prefix(2).compactMap(\.first).map(String.init).joined())
    }

    public static func svg(number: Int) -> String? {
        guard let (hue, initials) = design(number: number) else { return nil }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300">\
            <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">\
            <stop offset="0" stop-color="hsl(\(hue),70%,55%)"/><stop offset="1" stop-color="hsl(\((hue + 60) % 360),70%,30%)"/>\
            </linearGradient></defs><rect width="300" height="300" fill="url(#g)"/>\
            <text x="150" y="180" font-family="sans-serif" font-size="110" font-weight="700" fill="#fff" \
            text-anchor="middle" opacity="0.9">\(escaped(initials))</text></svg>
            """
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
