import Foundation
import MusicVotingKit

// musicvoting-cli: a terminal client built only on MusicVotingKit.
let usage = """
    usage: musicvoting-cli [--server URL] COMMAND
      join PIN          live view of a party as a guest: search, add and like from the keyboard
      host HOSTPIN      the host dashboard: play/pause, skip, remove, stall reasons
      queue [--json]    the queue of the joined party (or --pin PIN)
      add QUERY         add the first search result (joined party, or --pin PIN)
      veto [N]          toggle your veto on the playing song, or on waiting song N (R17a)
      skip | end        as host (the host session, or --host-pin PIN)
      settings [--fair on|off] [--veto SHARE] [--history on|off] [--approval off|new-guests|all] [--nicknames on|off]
                        show or change the party's rules (host)
      nickname [NAME]   name yourself in the joined party (or --pin PIN); without NAME, stay anonymous (R36)
      ban N | unban     ban whoever added waiting song N without learning who; lift every ban (host)
      pending | approve N | decline N   the songs waiting for approval; let song N in or turn it away (host, R35)
      cohosts [new | revoke ID | revoke --all]   list the co-host links, make one (prints it), revoke (host, R34)
    skip, ban and unban take --cohost LINK instead: act as a co-host with the link the host passed on.
    The server is --server, else $MUSICVOTING_SERVER, else http://127.0.0.1:8080.
    """

struct Failure: Error, CustomStringConvertible { let description: String }

@MainActor
func run(_ arguments: [String]) async throws -> Int32 {
    var words: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        if ["--server", "--pin", "--host-pin", "--cohost", "--fair", "--veto", "--history", "--approval", "--nicknames"].contains(argument), index + 1 < arguments.count {
            options[argument] = arguments[index + 1]
            index += 2
        } else if argument.hasPrefix("--") {
            flags.insert(argument)
            index += 1
        } else {
            words.append(argument)
            index += 1
        }
    }
    guard let command = words.first, !flags.contains("--help") else { print(usage); return words.isEmpty ? 2 : 0 }
    let server = options["--server"] ?? ProcessInfo.processInfo.environment["MUSICVOTING_SERVER"] ?? "http://127.0.0.1:8080"
    guard let base = URL(string: server) else { throw Failure(description: "--server \(server) is not a URL") }
    let home = ProcessInfo.processInfo.environment["MUSICVOTING_CLI_HOME"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/musicvoting-cli")
    let sessions = Sessions(storage: FileSessionStorage(folder: home))
    // A terminal's language is its locale variables (LANG=en_US.UTF-8 → English); German otherwise.
    let environment = ProcessInfo.processInfo.environment
    let strings = KitStrings(preferredLanguages: [environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"] ?? "de"])
    var client = MusicVotingClient(baseURL: base)

    func guestParty() async throws -> String {
        if let pin = options["--pin"] { return try await client.join(pin: pin).id }
        guard let guest = sessions.guest else { throw Failure(description: "join a party first (musicvoting-cli join PIN) or give --pin") }
        return guest.partyId
    }
    func hostParty() async throws -> String {
        // R34: a co-host's link names its server, party and token; the server decides what it may do.
        if let link = options["--cohost"] {
            guard let invitation = CohostInvitation(link: link) else { throw Failure(description: "--cohost takes the co-host link the host passed on") }
            client = MusicVotingClient.cohost(invitation)
            return invitation.partyId
        }
        if let hostPin = options["--host-pin"] {
            client.hostPin = hostPin
            return try await client.hostJoin(hostPin: hostPin).id
        }
        guard let host = sessions.host else { throw Failure(description: "log in first (musicvoting-cli host HOSTPIN) or give --host-pin") }
        client.hostPin = host.hostPin
        return host.partyId
    }

    switch command {
    case "join":
        guard words.count == 2 else { print(usage); return 2 }
        let partyId = try await client.join(pin: words[1]).id
        sessions.save(GuestSession(partyId: partyId, pin: words[1]))
        let party = GuestParty(client: client, partyId: partyId, sessions: sessions, strings: strings)
        var screen = GuestScreen(party: party, pin: words[1], strings: strings)
        await party.loadQueue()
        await party.search("")
        return await live(partyId: partyId, base: base, render: { screen.render() }, event: { await party.handle($0) },
                          line: { await screen.handle($0) })
    case "host":
        guard words.count == 2 else { print(usage); return 2 }
        client.hostPin = words[1]
        let joined = try await client.hostJoin(hostPin: words[1])
        sessions.save(HostSession(partyId: joined.id, hostPin: words[1], guestPin: joined.guestPin))
        let dashboard = HostDashboard(client: client, partyId: joined.id, sessions: sessions, strings: strings)
        let screen = HostScreen(dashboard: dashboard, strings: strings)
        await dashboard.load()
        return await live(partyId: joined.id, base: base, render: { screen.render() }, event: { await dashboard.handle($0) },
                          line: { await screen.handle($0) })
    case "queue":
        let entries = try await client.queue(try await guestParty(), deviceId: sessions.deviceId)
        if flags.contains("--json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(Terminal.escapingControls(inJSON: String(decoding: try encoder.encode(entries), as: UTF8.self)))
        } else {
            for entry in entries { Terminal.say(QueueLine.text(entry)) }
        }
        return 0
    case "veto":
        let partyId = try await guestParty()
        let entries = try await client.queue(partyId, deviceId: sessions.deviceId)
        let waiting = entries.filter { !$0.isCurrentlyPlaying }
        let target: QueueEntry?
        if words.count > 1 {
            guard let number = Int(words[1]), waiting.indices.contains(number - 1) else { throw Failure(description: "no waiting song \(words[1])") }
            target = waiting[number - 1]
        } else {
            target = entries.first { $0.isCurrentlyPlaying }
        }
        guard let target else { throw Failure(description: strings[.queueEmpty]) }
        let result = try await client.veto(partyId, uri: target.uri, deviceId: sessions.deviceId)
        Terminal.say("\(result.vetoed ? "⏭" : "↺") \(result.vetoCount)/\(result.vetoNeeded)  \(target.name)")
        return 0
    case "settings":
        let partyId = try await hostParty()
        var settings = try await client.settings(partyId)
        if let fair = options["--fair"] {
            guard ["on", "off"].contains(fair) else { throw Failure(description: "--fair on or off") }
            settings.fairQueue = fair == "on"
        }
        if let share = options["--veto"] {
            guard let value = Double(share) else { throw Failure(description: "--veto takes a share from 0 to 1") }
            settings.vetoShare = value
        }
        if let history = options["--history"] {
            guard ["on", "off"].contains(history) else { throw Failure(description: "--history on or off") }
            settings.history = history == "on"
        }
        if let approval = options["--approval"] {
            guard ["off", "new-guests", "all"].contains(approval) else { throw Failure(description: "--approval off, new-guests or all") }
            settings.approval = approval
        }
        if let nicknames = options["--nicknames"] {
            guard ["on", "off"].contains(nicknames) else { throw Failure(description: "--nicknames on or off") }
            settings.nicknames = nicknames == "on"
        }
        if ["--fair", "--veto", "--history", "--approval", "--nicknames"].contains(where: { options[$0] != nil }) {
            settings = try await client.updateSettings(partyId, settings)
        }
        Terminal.say("fairQueue: \(settings.fairQueue ? "on" : "off")  vetoShare: \(settings.vetoShare)  history: \(settings.history ? "on" : "off")"
            + "  approval: \(settings.approval)  nicknames: \(settings.nicknames ? "on" : "off")")
        return 0
    case "ban":
        let partyId = try await hostParty()
        let waiting = try await client.queue(partyId).filter { !$0.isCurrentlyPlaying }
        guard words.count == 2, let number = Int(words[1]), waiting.indices.contains(number - 1) else { print(usage); return 2 }
        let result = try await client.ban(partyId, entryId: waiting[number - 1].id)
        Terminal.say("banned: \(result.removed) removed")
        return 0
    case "unban":
        let partyId = try await hostParty()  // first: it sets the client's host PIN
        try await client.liftBans(partyId)
        Terminal.say("bans lifted")
        return 0
    case "cohosts":
        let partyId = try await hostParty()
        return try await cohosts(words: Array(words.dropFirst()), all: flags.contains("--all"), partyId: partyId, client: client)
    case "add":
        let query = words.dropFirst().joined(separator: " ")
        let partyId = try await guestParty()
        guard let track = try await client.search(partyId, query: query).first else { throw Failure(description: "nothing found for “\(query)”") }
        let result = try await client.addReportingApproval(partyId, uri: track.uri, deviceId: sessions.deviceId)
        Terminal.say("\(strings[result.isPending ? .awaitingApproval : .added]) \(track.name) – \(track.artistNames)")
        return 0
    case "nickname":
        let partyId = try await guestParty()
        let wanted = words.count > 1 ? words.dropFirst().joined(separator: " ") : nil
        let nickname = try await client.setNickname(partyId, deviceId: sessions.deviceId, nickname: wanted)
        Terminal.say(nickname.map { "\(strings[.nicknameSet]) \($0)" } ?? strings[.nicknameCleared])
        return 0
    case "pending":
        let partyId = try await hostParty()  // first: it sets the client's host PIN
        let songs = try await client.pendingSongs(partyId)
        if songs.isEmpty { Terminal.say(strings[.nothingAwaitsApproval]) }
        for (index, song) in songs.enumerated() { Terminal.say("\(index + 1). \(song.track.name) – \(song.track.artistNames)") }
        return 0
    case "approve", "decline":
        let partyId = try await hostParty()
        let songs = try await client.pendingSongs(partyId)
        guard words.count == 2, let number = Int(words[1]), songs.indices.contains(number - 1) else { print(usage); return 2 }
        let song = songs[number - 1]
        if command == "approve" { try await client.approve(partyId, pendingId: song.id) } else { try await client.decline(partyId, pendingId: song.id) }
        Terminal.say("\(strings[command == "approve" ? .approved : .declined]) \(song.track.name)")
        return 0
    case "skip":
        let partyId = try await hostParty()  // first: it sets the client's host PIN
        let result = try await client.next(partyId)
        Terminal.say(result.track.map { "\(strings[.nowPlaying]): \($0.name)" } ?? (result.message ?? strings[.queueEmpty]))
        return 0
    case "end":
        let partyId = try await hostParty()
        try await client.endParty(partyId)
        sessions.leaveHost()
        print(strings[.partyEnded])
        return 0
    default:
        print(usage)
        return 2
    }
}

/// R34 for the host: the live links (who joined first first), a new one, or revoking one or all.
func cohosts(words: [String], all: Bool, partyId: String, client: MusicVotingClient) async throws -> Int32 {
    switch words.first {
    case nil:
        let list = try await client.cohosts(partyId)
        if list.cohosts.isEmpty { Terminal.say("no co-hosts (at most \(list.limit))") }
        for (number, cohost) in list.cohosts.enumerated() {
            let since = cohost.joinedAt.map { "joined \(clock($0))" } ?? "not opened yet (made \(clock(cohost.createdAt)))"
            Terminal.say("\(number + 1)  \(cohost.id)  \(since)")
        }
    case "new":
        let made = try await client.createCohost(partyId)
        Terminal.say("\(made.id)  \(made.url)")
    case "revoke" where all:
        Terminal.say("revoked: \(try await client.revokeAllCohosts(partyId))")
    case "revoke" where words.count == 2:
        try await client.revokeCohost(partyId, cohost: words[1])
        Terminal.say("revoked: \(words[1])")
    default:
        print(usage)
        return 2
    }
    return 0
}

/// `HH:mm` of milliseconds since 1970, in the terminal's time zone.
func clock(_ milliseconds: Int) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm"
    return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
}

/// Redraws on every event and every typed line until `q` (or the input ends).
@MainActor
func live(partyId: String, base: URL, render: @escaping @MainActor () -> Void, event: @escaping @MainActor (PartyEvent) async -> Void,
          line: @escaping @MainActor (String) async -> Bool) async -> Int32 {
    let stream = PartyEventStream(baseURL: base, partyId: partyId)
    stream.start()
    render()
    let events = Task { @MainActor in
        for await item in stream.events {
            await event(item)
            render()
        }
    }
    for await text in Terminal.lines() {
        guard await line(text) else { break }
        render()
    }
    events.cancel()
    stream.stop()
    return 0
}

do {
    exit(try await run(Array(CommandLine.arguments.dropFirst())))
} catch let error as APIError {
    Terminal.say("musicvoting-cli: \(error.serverMessage ?? KitStrings(preferredLanguages: ["de"])[.backendUnreachable])", to: .standardError)
    exit(1)
} catch {
    Terminal.say("musicvoting-cli: \(error)", to: .standardError)
    exit(1)
}
