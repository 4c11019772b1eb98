/* The benchmark's hosted load (cluster_bench.py's hosted part): many parties at once, each with a TV reporting its
   position once a second, a few guests' event streams, and likes spread over the parties. One epoll thread drives
   it all, like likeload.c and sseclient.c: Python threads at 500 requests a second beside 1,500 streams would take
   the shared two cores first and measure themselves.

   usage: tvload PORTS PARTIES_FILE SECONDS LIKES_PER_SECOND LIKE_URI STREAMS_PER_PARTY DURATION_MS
     PORTS: a port, or a comma-separated list (party n uses the (n mod count)th).
     PARTIES_FILE: "PARTY_ID MONITOR_TOKEN" lines, one party a line.
   1. Opens STREAMS_PER_PARTY event streams per party (GET /api/spotify/events?partyId=…&source=web, as a guest's
      page) and waits until each is answered (at most 30 s); prints "ready OPENED STREAMS", OPENED those answered 200.
   2. The TVs start: party n's TV reports {position, duration, paused: false} with its monitor token n/PARTIES s past
      every second (the reports spread evenly over each second), on a keep-alive connection of its own. These
      reports are not counted yet: the caller starts the parties' songs meanwhile.
   3. At a line on stdin, for SECONDS: the reports due then are counted, and LIKES_PER_SECOND likes go out evenly
      spaced, like k to party k mod PARTIES (POST …/track/vote {uri: LIKE_URI, deviceId}, a new device id per like),
      on a keep-alive connection per party.
   4. Waits up to 10 s for the counted requests' answers and prints one line of "name value" pairs: per kind (reports,
      likes) the requests due, answered, answered 204/200, latency p50/p99/max in ms, every status as STATUS:COUNT,
      and those never answered (the connection failed or ended first, or no answer within the 10 s); the streams
      opened and still connected when the SECONDS ended, the progress and vote-updated events they read in the
      SECONDS; and this program's own CPU seconds in the SECONDS (it must not be what is measured).
   Latency runs from writing the request to reading the whole answer. A request that falls due while its connection
   still waits for the previous answer is sent after that answer, and its latency counts from when it was due (a
   TV's report that waits is late by that much, whoever held it up).
   Addresses: party n's devices come from a network of their own, 127.(100 + n / 250).(n % 250).0/24: the TV .1,
   the streams .2 on, the likes .200, so the instances count limits per address and network as for real venues. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum kind { TV, LIKE, STREAM };
enum { QUEUE = 64, BUFFER = 8192, TAIL = 32 };
#define PROGRESS_MARKER "\"type\":\"progress\""
#define VOTE_MARKER "\"type\":\"vote-updated\""

/* A request that fell due while its connection was busy: sent after the answer in front of it. */
struct due { double at; long number; int counted; };

/* One connection: a TV's, a party's likes', or a guest's event stream. */
struct connection {
    int kind, party, host, fd, connecting, busy, counted;
    long number;
    double started;
    struct due queue[QUEUE];
    int head, waiting;
    char buffer[BUFFER];
    size_t have;
    /* streams: answered 200 and open; the previous read's tail, so a marker split by reads counts once */
    int open, answered;
    char tail[TAIL];
    size_t tail_len;
};

/* What one kind of request came to: latencies of the answered ones, statuses, the ones never answered. */
struct tally {
    double *latencies;
    long answered, capacity, due, ok, unanswered;
    int statuses[600];
};

static int ports[16], port_count, parties, seconds, per_party, duration_ms, epoll_fd;
static double likes_per_second;
static const char *like_uri;
static char **party_ids, **monitor_tokens;
static struct tally reports, likes;
static long in_flight_counted, progress_events, vote_events;
static int streams_opened, streams_connected;
/* Events on the streams count while the reports and likes do. */
static enum { OPENING, WARMING, MEASURING, DRAINING } phase = OPENING;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* This program's own CPU time so far (user and system). */
static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void watch(struct connection *c, int operation, unsigned events) {
    struct epoll_event event = { .events = events, .data.ptr = c };
    if (epoll_ctl(epoll_fd, operation, c->fd, &event) != 0) { perror("epoll_ctl"); exit(1); }
}

/* A non-blocking connection from the device's own address: a full accept queue must not stall the other devices. */
static int connect_device(struct connection *c) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) { perror("socket"); exit(1); }
    struct sockaddr_in local = { .sin_family = AF_INET }, remote = { .sin_family = AF_INET };
    char address[32];
    snprintf(address, sizeof address, "127.%d.%d.%d", 100 + c->party / 250, c->party % 250, c->host);
    inet_pton(AF_INET, address, &local.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    remote.sin_port = htons(ports[c->party % port_count]);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) { perror("bind"); exit(1); }
    if (connect(fd, (struct sockaddr *)&remote, sizeof remote) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    c->fd = fd;
    c->connecting = 1;
    c->have = 0;
    watch(c, EPOLL_CTL_ADD, EPOLLOUT | EPOLLIN);
    return 0;
}

static void record(struct tally *t, int status, double latency) {
    t->answered++;
    if (status > 0 && status < 600) t->statuses[status]++;
    if (t->answered > t->capacity) {
        t->capacity = t->capacity ? t->capacity * 2 : 65536;
        t->latencies = realloc(t->latencies, (size_t)t->capacity * sizeof *t->latencies);
        if (!t->latencies) { perror("realloc"); exit(1); }
    }
    t->latencies[t->answered - 1] = latency * 1000;
}

static struct tally *tally_of(struct connection *c) { return c->kind == TV ? &reports : &likes; }

/* Writes the request `number` of the connection (a report or a like); 0 when the connection took it whole. */
static int send_request(struct connection *c, long number, double started, int counted) {
    char request[1024], body[256];
    int body_length, length;
    if (c->kind == TV) {
        long position = number * 1000L;
        if (position > duration_ms) position = duration_ms;
        body_length = snprintf(body, sizeof body, "{\"position\":%ld,\"duration\":%d,\"paused\":false}", position, duration_ms);
        length = snprintf(request, sizeof request,
                          "POST /api/party/%s/track/progress HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s",
                          party_ids[c->party], monitor_tokens[c->party], body_length, body);
    } else {
        body_length = snprintf(body, sizeof body, "{\"uri\":\"%s\",\"deviceId\":\"guest-%ld\"}", like_uri, number);
        length = snprintf(request, sizeof request,
                          "POST /api/party/%s/track/vote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: %d\r\n\r\n%s", party_ids[c->party], body_length, body);
    }
    c->busy = 1;
    c->number = number;
    c->started = started;
    c->counted = counted;
    c->have = 0;
    return write(c->fd, request, (size_t)length) == length ? 0 : -1;
}

static void fail_in_flight(struct connection *c) {
    if (c->busy && c->counted) {
        tally_of(c)->unanswered++;
        in_flight_counted--;
    }
    c->busy = 0;
}

/* The connection ended or failed: the request on it was never answered; the waiting ones go on a new one. */
static void connection_lost(struct connection *c) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->connecting = 0;
    if (c->kind == STREAM) {
        if (c->open) streams_connected--;
        c->open = 0;
        c->answered = 1;
        return;
    }
    fail_in_flight(c);
    if (c->waiting > 0 && connect_device(c) != 0) {
        /* Refused at once: every waiting request fails; the next one due tries again. */
        for (; c->waiting > 0; c->waiting--, c->head = (c->head + 1) % QUEUE) {
            if (c->queue[c->head].counted) { tally_of(c)->unanswered++; in_flight_counted--; }
        }
    }
}

/* Sends the first waiting request, its latency counted from when it fell due. */
static void send_waiting(struct connection *c) {
    if (c->waiting == 0 || c->busy || c->connecting || c->fd < 0) return;
    struct due next = c->queue[c->head];
    c->head = (c->head + 1) % QUEUE;
    c->waiting--;
    if (send_request(c, next.number, next.at, next.counted) != 0) connection_lost(c);
}

/* A request falls due: sent now when the connection is free, else queued behind the one in flight. */
static void fall_due(struct connection *c, long number, double at, int counted) {
    if (counted) { tally_of(c)->due++; in_flight_counted++; }
    if (c->fd >= 0 && !c->busy && !c->connecting) {
        if (send_request(c, number, now_s(), counted) != 0) connection_lost(c);
        return;
    }
    if (c->waiting == QUEUE) {  /* over a minute behind: counted as never answered */
        if (counted) { tally_of(c)->unanswered++; in_flight_counted--; }
        return;
    }
    c->queue[(c->head + c->waiting) % QUEUE] = (struct due){ at, number, counted };
    c->waiting++;
    if (c->fd < 0 && connect_device(c) != 0) connection_lost(c);
}

/* The status of the whole answer in the buffer, 0 while it is incomplete; *closes when it says Connection: close. */
static int complete_answer(struct connection *c, int *closes) {
    c->buffer[c->have] = 0;
    char *end = strstr(c->buffer, "\r\n\r\n");
    if (!end) return 0;
    *end = 0;
    char *length = strcasestr(c->buffer, "content-length:");
    int chunked = strcasestr(c->buffer, "transfer-encoding: chunked") != NULL;
    *closes = strcasestr(c->buffer, "connection: close") != NULL;
    *end = '\r';
    size_t head = (size_t)(end + 4 - c->buffer);
    if (chunked) {
        if (c->have < head + 5 || memcmp(c->buffer + c->have - 5, "0\r\n\r\n", 5) != 0) return 0;
    } else if (c->have < head + (length ? strtoul(length + 15, NULL, 10) : 0)) {
        return 0;
    }
    return atoi(c->buffer + 9);
}

static void read_answer(struct connection *c) {
    ssize_t got = read(c->fd, c->buffer + c->have, BUFFER - 1 - c->have);
    if (got < 0 && errno == EAGAIN) return;
    if (got <= 0 || !c->busy) { connection_lost(c); return; }
    c->have += (size_t)got;
    int closes = 0, status = complete_answer(c, &closes);
    if (status == 0) {
        if (c->have >= BUFFER - 1) connection_lost(c);
        return;
    }
    if (c->counted) {
        struct tally *t = tally_of(c);
        record(t, status, now_s() - c->started);
        if (status == (c->kind == TV ? 204 : 200)) t->ok++;
        in_flight_counted--;
    }
    c->busy = 0;
    if (closes) {
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
        if (c->waiting > 0 && connect_device(c) != 0) connection_lost(c);
        return;
    }
    send_waiting(c);
}

static long count_marker(const char *text, size_t length, size_t tail, const char *marker) {
    size_t marker_len = strlen(marker);
    long found = 0;
    for (const char *hit = text; (hit = memmem(hit, length - (size_t)(hit - text), marker, marker_len)); hit++) {
        if ((size_t)(hit - text) + marker_len > tail) found++;  /* not wholly inside the previous read's tail */
    }
    return found;
}

static void read_stream(struct connection *c) {
    static char data[65536 + TAIL];
    ssize_t got;
    while ((got = read(c->fd, data + TAIL, 65536)) > 0) {
        char *start = data + TAIL;
        size_t length = (size_t)got;
        if (!c->answered) {
            size_t take = (size_t)got < BUFFER - 1 - c->have ? (size_t)got : BUFFER - 1 - c->have;
            memcpy(c->buffer + c->have, start, take);
            c->have += take;
            c->buffer[c->have] = 0;
            char *end = strstr(c->buffer, "\r\n\r\n");
            if (!end) {
                if (c->have >= BUFFER - 1) { c->answered = 1; connection_lost(c); return; }
                continue;
            }
            c->answered = 1;
            if (atoi(c->buffer + 9) != 200) { connection_lost(c); return; }
            c->open = 1;
            streams_opened++;
            streams_connected++;
        }
        start -= c->tail_len;
        memcpy(start, c->tail, c->tail_len);
        length += c->tail_len;
        if (phase == MEASURING) {
            progress_events += count_marker(start, length, c->tail_len, PROGRESS_MARKER);
            vote_events += count_marker(start, length, c->tail_len, VOTE_MARKER);
        }
        c->tail_len = length < TAIL - 1 ? length : TAIL - 1;
        memcpy(c->tail, start + length - c->tail_len, c->tail_len);
    }
    if (got == 0 || errno != EAGAIN) connection_lost(c);
}

static void connected(struct connection *c) {
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) { connection_lost(c); return; }
    c->connecting = 0;
    watch(c, EPOLL_CTL_MOD, EPOLLIN);
    if (c->kind == STREAM) {
        char request[512];
        int length = snprintf(request, sizeof request, "GET /api/spotify/events?partyId=%s&source=web HTTP/1.1\r\n"
                              "Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", party_ids[c->party]);
        if (write(c->fd, request, (size_t)length) != length) connection_lost(c);
        return;
    }
    send_waiting(c);
}

static void arm(int timer, double at) {
    struct itimerspec when = { 0 };
    when.it_value.tv_sec = (time_t)at;
    when.it_value.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
    if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0) when.it_value.tv_nsec = 1;
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_tally(const char *name, struct tally *t) {
    qsort(t->latencies, (size_t)t->answered, sizeof *t->latencies, compare);
    double p50 = t->answered ? t->latencies[t->answered / 2] : -1, p99 = t->answered ? t->latencies[t->answered * 99 / 100] : -1,
           max = t->answered ? t->latencies[t->answered - 1] : -1;
    printf("%s_due %ld %s_answered %ld %s_ok %ld %s_p50 %.2f %s_p99 %.2f %s_max %.2f %s_unanswered %ld %s_statuses ",
           name, t->due, name, t->answered, name, t->ok, name, p50, name, p99, name, max, name, t->unanswered, name);
    int first = 1;
    for (int status = 0; status < 600; status++) {
        if (t->statuses[status]) { printf("%s%d:%d", first ? "" : ",", status, t->statuses[status]); first = 0; }
    }
    printf("%s ", first ? "-" : "");
}

static void read_parties(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) { perror(path); exit(1); }
    char id[128], token[256];
    int capacity = 0;
    while (fscanf(file, "%127s %255s", id, token) == 2) {
        if (parties == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            party_ids = realloc(party_ids, (size_t)capacity * sizeof *party_ids);
            monitor_tokens = realloc(monitor_tokens, (size_t)capacity * sizeof *monitor_tokens);
        }
        party_ids[parties] = strdup(id);
        monitor_tokens[parties] = strdup(token);
        parties++;
    }
    fclose(file);
}

int main(int argc, char **argv) {
    if (argc != 8) { fprintf(stderr, "usage: see the file's comment\n"); return 2; }
    for (char *item = strtok(argv[1], ","); item && port_count < 16; item = strtok(NULL, ",")) ports[port_count++] = atoi(item);
    read_parties(argv[2]);
    seconds = atoi(argv[3]);
    likes_per_second = atof(argv[4]);
    like_uri = argv[5];
    per_party = atoi(argv[6]);
    duration_ms = atoi(argv[7]);
    if (port_count == 0 || parties == 0 || parties > 25000 || seconds < 1 || likes_per_second < 0 || per_party < 0 || per_party > 190) return 2;
    signal(SIGPIPE, SIG_IGN);  /* a write to a connection the server reset fails instead of ending the run */
    epoll_fd = epoll_create1(0);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
    struct epoll_event interest = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, timer, &interest);

    struct connection *tvs = calloc((size_t)parties, sizeof *tvs), *likers = calloc((size_t)parties, sizeof *likers);
    struct connection *streams = calloc((size_t)parties * (size_t)(per_party ? per_party : 1), sizeof *streams);
    int stream_count = parties * per_party;
    for (int n = 0; n < parties; n++) {
        tvs[n] = (struct connection){ .kind = TV, .party = n, .host = 1, .fd = -1 };
        likers[n] = (struct connection){ .kind = LIKE, .party = n, .host = 200, .fd = -1 };
        for (int s = 0; s < per_party; s++) {
            struct connection *c = &streams[n * per_party + s];
            *c = (struct connection){ .kind = STREAM, .party = n, .host = 2 + s, .fd = -1 };
            if (connect_device(c) != 0) c->answered = 1;
        }
    }

    double opening_deadline = now_s() + 30, cpu_at_go = 0, cpu_at_end = 0, reports_from = 0, go = 0, end = 0, drain_deadline = 0;
    long next_report = 0, next_like = 0;
    int connected_at_end = 0;
    static struct connection input;  /* stdin's place in the epoll */
    struct epoll_event happened[512];
    for (;;) {
        double now = now_s();
        if (phase == OPENING) {
            int answered = 0;
            for (int i = 0; i < stream_count; i++) answered += streams[i].answered;
            if (answered == stream_count || now >= opening_deadline) {
                printf("ready %d %d\n", streams_opened, stream_count);
                fflush(stdout);
                struct epoll_event event = { .events = EPOLLIN, .data.ptr = &input };
                epoll_ctl(epoll_fd, EPOLL_CTL_ADD, 0, &event);
                phase = WARMING;
                reports_from = now;
            }
        }
        if (phase == WARMING || phase == MEASURING) {
            double due, limit = phase == MEASURING ? end : 1e300;
            while ((due = reports_from + (double)next_report / parties) <= now && due < limit) {
                fall_due(&tvs[next_report % parties], next_report / parties, due, phase == MEASURING && due >= go);
                next_report++;
            }
            while (phase == MEASURING && likes_per_second > 0 && (due = go + (double)next_like / likes_per_second) <= now && due < end) {
                fall_due(&likers[next_like % parties], next_like, due, 1);
                next_like++;
            }
            if (phase == MEASURING && now >= end) {
                phase = DRAINING;
                drain_deadline = now + 10;
                connected_at_end = streams_connected;
                cpu_at_end = cpu_seconds();
            } else {
                double next = reports_from + (double)next_report / parties;
                if (phase == MEASURING) {
                    if (likes_per_second > 0 && go + (double)next_like / likes_per_second < next) next = go + (double)next_like / likes_per_second;
                    if (end < next) next = end;
                }
                arm(timer, next);
            }
        }
        if (phase == DRAINING && (in_flight_counted == 0 || now >= drain_deadline)) break;
        int count = epoll_wait(epoll_fd, happened, 512, 100);
        for (int k = 0; k < count; k++) {
            struct connection *c = happened[k].data.ptr;
            if (c == NULL) {  /* the timer */
                unsigned long long expirations;
                if (read(timer, &expirations, sizeof expirations) < 0) {}
                continue;
            }
            if (c == &input) {  /* a line on stdin: counting starts */
                char line[64];
                ssize_t got = read(0, line, sizeof line);
                epoll_ctl(epoll_fd, EPOLL_CTL_DEL, 0, NULL);
                if (got <= 0 && phase == WARMING) return 1;
                if (phase == WARMING) {
                    phase = MEASURING;
                    go = now_s();
                    end = go + seconds;
                    cpu_at_go = cpu_seconds();
                }
                continue;
            }
            if (c->fd < 0) continue;
            if (c->connecting) { connected(c); continue; }
            if (c->kind == STREAM) read_stream(c); else read_answer(c);
        }
    }
    /* Whatever is still in flight or waiting was never answered. */
    for (int n = 0; n < parties; n++) {
        struct connection *group[2] = { &tvs[n], &likers[n] };
        for (int g = 0; g < 2; g++) {
            struct connection *c = group[g];
            if (c->busy && c->counted) tally_of(c)->unanswered++;
            for (int w = 0; w < c->waiting; w++) {
                if (c->queue[(c->head + w) % QUEUE].counted) tally_of(c)->unanswered++;
            }
        }
    }
    print_tally("reports", &reports);
    print_tally("likes", &likes);
    printf("streams %d opened %d connected %d progress_events %ld vote_events %ld seconds %d cpu %.2f\n", stream_count,
           streams_opened, connected_at_end, progress_events, vote_events, seconds, cpu_at_end - cpu_at_go);
    return 0;
}
