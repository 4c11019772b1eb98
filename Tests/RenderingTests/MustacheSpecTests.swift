import Foundation
import Testing
@testable import Rendering

/// One case of the official Mustache spec (copied into Resources/mustache-spec, never fetched).
struct SpecCase: CustomTestStringConvertible, Sendable {
    let file: String
    let name: String
    let template: String
    let data: MustacheValue
    let partials: [String: String]
    let expected: String
    var testDescription: String { "\(file): \(name)" }
}

enum MustacheSpec {
    static let modules = ["comments", "delimiters", "interpolation", "inverted", "partials", "sections"]

    static func cases() throws -> [SpecCase] {
        try modules.flatMap { module -> [SpecCase] in
            guard let url = Bundle.module.url(forResource: "Resources/mustache-spec/\(module)", withExtension: "json") else {
                throw CocoaError(.fileNoSuchFile)
            }
            let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
            return (root["tests"] as? [[String: Any]] ?? []).map { test in
                SpecCase(file: module, name: test["name"] as? String ?? "", template: test["template"] as? String ?? "",
                         data: value(test["data"] as Any), partials: test["partials"] as? [String: String] ?? [:],
                         expected: test["expected"] as? String ?? "")
            }
        }
    }

    /// Foundation's JSON objects to template values; booleans are NSNumbers of type "c" on Linux.
    static func value(_ object: Any) -> MustacheValue {
        switch object {
        case let number as NSNumber where String(cString: number.objCType) == "c": return .bool(number.boolValue)
        case let number as NSNumber: return .number(number.doubleValue)
        case let text as String: return .string(text)
        case let list as [Any]: return .list(list.map(value))
        case let object as [String: Any]: return .object(object.mapValues(value))
        default: return .null
        }
    }
}

@Suite("Mustache spec (core modules)")
struct MustacheSpecTests {
    @Test func theSuiteHas136Cases() throws {
        #expect(try MustacheSpec.cases().count == 136)
    }

    @Test(arguments: try MustacheSpec.cases())
    func specCase(_ specCase: SpecCase) throws {
        let template = try Template(specCase.template)
        let partials = try specCase.partials.mapValues { try Template($0) }
        #expect(template.render(specCase.data, partials: partials) == specCase.expected)
    }
}

@Suite("Templates: our own cases")
struct TemplateTests {
    @Test func valuesAreEscapedByDefaultAndRawOnlyWhenAsked() throws {
        let template = try Template("<p title='{{t}}'>{{t}}</p>{{{t}}}")
        #expect(template.render(["t": "<img src=x onerror=alert(1)> & 'q'"])
                == "<p title='&lt;img src=x onerror=alert(1)&gt; &amp; &#39;q&#39;'>&lt;img src=x onerror=alert(1)&gt; &amp; &#39;q&#39;</p><img src=x onerror=alert(1)> & 'q'")
    }

    @Test func layoutsUsePartialsWithTheCallersContext() throws {
        let page = try Template("{{>header}}<main>{{#items}}<li>{{name}}</li>{{/items}}{{^items}}leer{{/items}}</main>")
        let header = try Template("<h1>{{title}}</h1>")
        #expect(page.render(["title": "Party", "items": [["name": "A"], ["name": "B"]]], partials: ["header": header])
                == "<h1>Party</h1><main><li>A</li><li>B</li></main>")
        #expect(page.render(["title": "Party", "items": []], partials: ["header": header]) == "<h1>Party</h1><main>leer</main>")
    }

    @Test func brokenTemplatesFailAtParseTimeNotAtRender() {
        #expect(throws: Template.ParseError.self) { try Template("{{#a}}never closed") }
        #expect(throws: Template.ParseError.self) { try Template("{{#a}}{{/b}}") }
        #expect(throws: Template.ParseError.self) { try Template("{{unclosed") }
    }

    @Test func aSelfIncludingPartialStopsInsteadOfRecursingForever() throws {
        let loop = try Template("x{{>loop}}")
        #expect(loop.render([:], partials: ["loop": loop]).count == 65)
    }
}
