// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MusicVoting",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "musicvoting", targets: ["musicvoting"]),
        // The iOS app's logic: Foundation and Observation only, no C library, no server module.
        .library(name: "MusicVotingKit", targets: ["MusicVotingKit"]),
        .executable(name: "musicvoting-cli", targets: ["musicvoting-cli"]),
    ],
    targets: [
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The same store on PostgreSQL (`--database postgres://…`), through Debian's libpq.
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // TagLib's C API reads the local folder's tags rather than a hand-written tag parser.
        // SHA-256, HMAC and key-grade randomness for Spotify's PKCE and signed OAuth state, from the GnuTLS that
        // libmicrohttpd already links (libmicrohttpd-dev depends on libgnutls28-dev): no new library.
        .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls", providers: [.apt(["libgnutls28-dev"])]),
        // gzip for the static text assets (slow party Wi-Fi); libpng-dev already depends on zlib1g-dev.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CTagLib", pkgConfig: "taglib_c", providers: [.apt(["libtagc0-dev"])]),

        // The blacklist fold table (case folding + TR39 confusable skeletons) comes from Debian's ICU at
        // build time: FoldTableGenerator (C, host tool) writes Swift source into PartyCore, which still imports only
        // Foundation, so the server binary does not link libicu.
        .systemLibrary(name: "CICU", pkgConfig: "icu-i18n", providers: [.apt(["libicu-dev"])]),
        .executableTarget(name: "FoldTableGenerator", dependencies: ["CICU"]),
        .plugin(name: "FoldTablePlugin", capability: .buildTool(), dependencies: ["FoldTableGenerator"],
                path: "Sources/FoldTablePlugin"),
        // A client's network (IPv4 /24, IPv6 /64) and device, for the connection caps and every limit.
        .target(name: "ClientNetwork"),
        .target(name: "PartyCore", dependencies: ["ClientNetwork"], plugins: ["FoldTablePlugin"]),
        // libmicrohttpd's own error answers carry the JSON error shape (R26): see ErrorBodies.c for why a C target. GnuTLS:
        // a head refused before any work is answered on the connection's TLS session itself (RequestHead.c).
        .target(name: "CMicroHTTPDErrors", dependencies: ["CMicroHTTPD"], linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("gnutls")]),
        // The JSON value, parser and serializer: used by the HTTP layer, the event stream frames and the tests.
        .target(name: "JSONKit"),
        // Counters, gauges and histograms in Prometheus' text format: atomics only, so every layer may count its own work.
        .target(name: "Metrics"),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CMicroHTTPDErrors", "CZlib", "JSONKit", "ClientNetwork", "Metrics"]),
        .target(name: "PartyStore", dependencies: ["PartyCore", "CSQLite", "CPostgreSQL", "Metrics"]),
        .target(name: "Providers", dependencies: ["PartyCore", "CTagLib", "CGnuTLS", "Metrics"]),
        .target(name: "Rendering", dependencies: ["CQREncode", "CPNG"]),
        // The party service: rules applied to the store, one owner of the state, the event hub. No HTTP.
        .target(name: "PartyEngine", dependencies: ["PartyCore", "PartyStore", "Providers", "JSONKit", "ClientNetwork", "Metrics"]),
        // The PostgreSQL side of every concern several instances share (limits and pairings, presence, logins, the
        // event channel, timers, upkeep): the engine's seams implemented on sessions of their own.
        .target(name: "PartyCluster", dependencies: ["PartyCore", "PartyStore", "PartyEngine", "Providers"]),
        // Public/ and Templates/ inside the binary: a build plugin runs ResourceEmbedder, which uses the
        // server's own StaticContent for tags and gzip; `--resources DIR` overrides them for development.
        .executableTarget(name: "ResourceEmbedder", dependencies: ["HTTPServer"]),
        .plugin(name: "EmbedResourcesPlugin", capability: .buildTool(), dependencies: ["ResourceEmbedder"],
                path: "Sources/EmbedResourcesPlugin"),
        .target(name: "EmbeddedResources", dependencies: ["HTTPServer"], plugins: ["EmbedResourcesPlugin"]),
        .target(
            name: "MusicVotingServer",
            dependencies: ["PartyCore", "PartyStore", "Providers", "Rendering", "HTTPServer", "JSONKit", "PartyEngine",
                           "PartyCluster", "EmbeddedResources", "Metrics"]
        ),
        // `--static-swift-stdlib` links FoundationNetworking statically, and it calls libcurl: name it.
        .executableTarget(name: "musicvoting", dependencies: ["MusicVotingServer"],
                          linkerSettings: [.linkedLibrary("curl", .when(platforms: [.linux]))]),

        .target(name: "MusicVotingKit"),
        .executableTarget(name: "musicvoting-cli", dependencies: ["MusicVotingKit"]),

        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // One way to speak to a server in tests, whichever it is: the application in the test process (router, party
        // service, injected clock, either store) or the real binary on a socket, one instance or a cluster behind
        // nginx; one `TestParty` on top, for the in-process, end-to-end and cluster targets.
        .target(name: "PartyTestSupport", dependencies: ["MusicVotingServer", "HTTPServer", "PartyCore", "TestSupport"],
                path: "Tests/PartyTestSupport"),
        .testTarget(name: "PartyCoreTests", dependencies: ["PartyCore", "ClientNetwork", "TestSupport"]),
        // A power cut under the store's SQLite settings: the files as their last syncs left them, checked after cuts
        // at random commits (WriteAheadLogTests runs it).
        .executableTarget(name: "power-cut", dependencies: ["CSQLite"], path: "Tests/PowerCut"),
        .testTarget(name: "PartyStoreTests", dependencies: ["PartyStore", "TestSupport", "power-cut"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering"], resources: [.copy("Resources")]),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "CTagLib"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "ClientNetwork", "JSONKit", "TestSupport", "PartyTestSupport"]),
        .testTarget(name: "MusicVotingServerTests", dependencies: ["MusicVotingServer", "PartyEngine", "PartyStore", "HTTPServer", "TestSupport",
                                                                    "PartyTestSupport"]),
        // The API contract in process: requests through the real pipeline, routes and party service, no socket.
        .testTarget(name: "APIContractTests", dependencies: ["MusicVotingServer", "PartyCore", "PartyEngine", "PartyStore", "HTTPServer", "TestSupport",
                                                             "PartyTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["musicvoting", "PartyStore", "HTTPServer", "JSONKit", "TestSupport", "PartyTestSupport"],
                    resources: [.copy("Fixtures")]),
        // Three instances of the real binary on one PostgreSQL, Debian's nginx in front.
        .testTarget(name: "ClusterTests", dependencies: ["musicvoting", "TestSupport", "HTTPServer", "PartyTestSupport"], path: "Tests/Cluster"),
        // The kit against the real binary on 127.0.0.1:0, and the CLI through tmux.
        .testTarget(name: "MusicVotingKitTests", dependencies: ["MusicVotingKit", "musicvoting", "musicvoting-cli", "TestSupport"]),
    ]
)
