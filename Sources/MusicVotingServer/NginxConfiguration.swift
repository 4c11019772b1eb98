import HTTPServer
import PartyEngine

/// `musicvoting nginx-config --upstream HOST:PORT … [--listen [ADDRESS:]PORT] [--round-robin]
/// [--max-connections-per-address N]`: the nginx configuration for several instances on one PostgreSQL,
/// printed for `/etc/nginx/conf.d/musicvoting.conf` (it goes inside nginx's `http` block). The cluster tests and
/// `cluster_bench.py` run nginx on exactly this text.
public struct NginxConfiguration: Equatable {
    public struct UsageError: Error, CustomStringConvertible {
        public let description: String
    }

    static let usage = "usage: musicvoting nginx-config --upstream HOST:PORT [--upstream HOST:PORT …] [--listen [ADDRESS:]PORT] [--round-robin]"
        + " [--max-connections-per-address N]"

    /// The instances, `host:port` each, in the order given.
    public var upstreams: [String] = []
    /// nginx's `listen` parameter: a port, or an address and a port.
    public var listen = "80"
    /// Each party's requests and streams go to one instance (`hash … consistent`), so its likes, reads and events
    /// mostly stay in one process; round-robin is as correct (the shared store and the event log), only busier.
    public var partyHash = true
    /// Connections one guest address may hold through nginx (0: no limit). Behind a trusted proxy the instances count
    /// none per address (every connection comes from the proxy), so nginx counts them as an instance reached directly
    /// would; the same flag and default as the instances'.
    public var connectionsPerAddress = PartyLimits().connectionsPerAddress

    /// Idle connections to the instances one nginx worker keeps (`keepalive`).
    static let keptConnections = 32
    /// Requests one kept connection carries before nginx closes it (`keepalive_requests`, nginx's own default): nginx
    /// closes it, so nothing is lost, and the connections to an instance renew now and then.
    static let requestsPerConnection = 1_000

    public init(arguments: [String]) throws(UsageError) {
        var index = 0
        func value() throws(UsageError) -> String {
            guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
                throw UsageError(description: "\(arguments[index]) needs a value\n\(Self.usage)")
            }
            index += 1
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--upstream":
                let upstream = try value()
                // nginx would take a bare host for port 80: the instances listen on 8080 unless told, so ask for the port.
                guard let colon = upstream.lastIndex(of: ":"), UInt16(upstream[upstream.index(after: colon)...]) != nil,
                      !upstream.contains(where: { $0.isWhitespace || $0 == ";" }) else {
                    throw UsageError(description: "--upstream wants HOST:PORT, got \(upstream)\n\(Self.usage)")
                }
                upstreams.append(upstream)
            case "--listen":
                listen = try value()
                guard !listen.contains(where: { $0.isWhitespace || $0 == ";" }) else {
                    throw UsageError(description: "--listen wants [ADDRESS:]PORT, got \(listen)\n\(Self.usage)")
                }
            case "--round-robin": partyHash = false
            case "--max-connections-per-address":
                let text = try value()
                guard let number = Int(text), (0...1_000_000).contains(number) else {
                    throw UsageError(description: "--max-connections-per-address wants a number from 0 to 1000000, got \(text)\n\(Self.usage)")
                }
                connectionsPerAddress = number
            default: throw UsageError(description: "unknown argument \(arguments[index])\n\(Self.usage)")
            }
            index += 1
        }
        guard !upstreams.isEmpty else { throw UsageError(description: "name at least one --upstream\n\(Self.usage)") }
    }

    public var text: String {
        let servers = upstreams.map { "    server \($0) max_fails=1 fail_timeout=2s;" }.joined(separator: "\n")
        let balancing = partyHash
            ? "    # One party, one instance while it lives: its id from the path, or the event stream's partyId.\n    hash $musicvoting_party consistent;\n"
            : "    # Round-robin: every request to the next instance.\n"
        let addressZone = connectionsPerAddress == 0 ? "" : """
            # Connections per guest address, as each instance counts them when guests reach it directly.
            limit_conn_zone $binary_remote_addr zone=musicvoting_addresses:10m;

            """
        let addressLimit = connectionsPerAddress == 0 ? "" : "    limit_conn musicvoting_addresses \(connectionsPerAddress);\n"
        return """
            # MusicVoting: \(upstreams.count) instance\(upstreams.count == 1 ? "" : "s") on one PostgreSQL database (docs/scaling.md).
            # Printed by `musicvoting nginx-config`; goes inside nginx's http block (/etc/nginx/conf.d/musicvoting.conf).
            \(addressZone)# The party a request belongs to, read as the instances read it, so no other spelling of one id reaches another
            # instance: a whole path segment after /api/party/ (nginx's $uri is decoded, as the instances decode the path).
            map $uri $musicvoting_party_in_path {
                "~^/api/party/(?<musicvoting_party_id>[0-9a-f]{16,})(/|$)" $musicvoting_party_id;
                default "";
            }
            # Else the event stream's partyId when it is plain hex and the query names it once, in plain names (nginx
            # reads the first of repeated arguments, the instances the last, after decoding names and values).
            map "$uri?$args" $musicvoting_party_in_query {
                "~*^/api/spotify/events\\?(.*&)?partyId(=[^&]*)?&(.*&)?partyId(=|&|$)" "";
                "~^/api/spotify/events\\?([A-Za-z0-9_]+(=[^&]*)?&)*partyId=(?<musicvoting_stream_party>[0-9a-f]{16,})(&[A-Za-z0-9_]+(=[^&]*)?)*$" $musicvoting_stream_party;
                default "";
            }
            map $musicvoting_party_in_path $musicvoting_party {
                "" $musicvoting_party_in_query;
                default $musicvoting_party_in_path;
            }
            upstream musicvoting {
            \(balancing)    # Connections to the instances are kept for the next request (after the balancing line: nginx's
                # keepalive wraps the balancer named before it). Up to \(Self.keptConnections) idle ones per nginx worker: a like is
                # answered within milliseconds, so that covers what one worker has in flight at a party's peak; past it
                # nginx opens more, as without keepalive. nginx, never an instance, ends an idle one: its timeout is well
                # under the instances' own (\(Server.idleTimeout) s). A draining instance refuses new connections but serves the
                # kept ones until this timeout has passed, each answer with Connection: close, so a like sent on a kept
                # connection is always answered (docs/scaling.md).
                keepalive \(Self.keptConnections);
                keepalive_timeout \(Server.proxyIdleTimeout)s;
                keepalive_requests \(Self.requestsPerConnection);
                # Passive health only (open-source nginx has no active checks): an instance that refused or dropped a
                # connection gets no requests for fail_timeout, then one to try. A draining instance refuses new
                # connections, so it leaves once nginx's kept ones to it are used up; /readyz is for checkers that poll
                # (docs/operations.md).
            \(servers)
            }
            server {
                listen \(listen);
                # A head or body that stops arriving is dropped after the instances' deadlines for them (nginx waits 60 s
                # by default; its body timeout counts from one read to the next, theirs the whole body).
                client_header_timeout \(Int(Server.headDeadline))s;
                client_body_timeout \(Int(Server.bodyDeadline))s;
            \(addressLimit)    location / {
                    proxy_pass http://musicvoting;
                    # HTTP/1.1 and no "Connection: close" from nginx: what keeps the upstream connections.
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_set_header Host $http_host;
                    # Start the instances with --trusted-proxy <this machine's address>: limits count per guest. An
                    # X-Forwarded-For they cannot read (over 1 KiB, or not addresses) is refused with 400.
                    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                    # Event streams: every event at once, and open for as long as the page is.
                    proxy_buffering off;
                    proxy_read_timeout 1h;
                    # An instance that is down or draining refuses a new connection: the next one gets the request. Not
                    # once a request reached an instance (nginx resends a POST only with non_idempotent): a like, an add
                    # or a skip may have been done there. Not on 502 or 503 either: the instances answer them for a
                    # music service or a database away, which the next instance would answer alike.
                    proxy_connect_timeout 2s;
                    proxy_next_upstream error timeout;
                }
            }

            """
    }
}
