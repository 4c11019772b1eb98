/* The benchmark's like load: CLIENTS keep-alive connections, each toggling likes as fast as the server
   answers it (one like in flight per connection, a closed loop like CLIENTS phones), every like by a new device. The
   server limits likes per address, so a connection moves to a fresh loopback source address (a new connection) every
   PER_ADDRESS likes. One epoll thread drives them all, like sseclient.c and wrk: a thread per connection cost the
   shared two cores 14 µs a like in wake-ups and switches, a third of what the server spends on it.

   usage: likeload PORT PARTY_ID URI SECONDS CLIENTS PER_ADDRESS [ACKNOWLEDGED_FILE]
     PARTY_ID may be a comma-separated list: each like goes to the next party of the list in turn (URI queued in each).
     LIKELOAD_FIRST_CLIENT=N numbers the clients from N (their source addresses and device ids): a second run
     within a minute of the first would otherwise meet the per-address limits its addresses used up.
     Prints "acknowledged COUNT sent COUNT seconds S": the likes answered 200, the requests sent, the time taken.
     With ACKNOWLEDGED_FILE, each acknowledged like's device id goes there, one a line (the kill -9 runs of
     cluster_bench.py look each one up in the database). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port, seconds, clients, per_address, first_client;
static const char *uri;
static char *parties[256];
static int party_count;
static FILE *acknowledged_file;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* One phone: its connection, the address round it is on, and the answer it is reading. */
struct client {
    int number, fd, round, on_address;
    long attempts;
    size_t have;
    char buffer[8192];
};

static int connect_from(int client, int round) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { perror("socket"); exit(1); }
    struct sockaddr_in local = { .sin_family = AF_INET }, remote = { .sin_family = AF_INET, .sin_port = htons(port) };
    char address[32];
    snprintf(address, sizeof address, "127.%d.%d.%d", 1 + client, round / 250 % 250, round % 250 + 1);
    inet_pton(AF_INET, address, &local.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) { perror("bind"); exit(1); }
    if (connect(fd, (struct sockaddr *)&remote, sizeof remote) != 0) { perror("connect"); exit(1); }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Connects the client from its current round's source address and watches the connection. */
static void open_connection(int poll, struct client *c) {
    c->fd = connect_from(c->number, c->round);
    c->on_address = 0;
    struct epoll_event event = { .events = EPOLLIN, .data.ptr = c };
    epoll_ctl(poll, EPOLL_CTL_ADD, c->fd, &event);
}

/* Moves the client to a new connection from its next source address. */
static void reconnect(int poll, struct client *c) {
    close(c->fd);
    c->round++;
    open_connection(poll, c);
}

static void drop(struct client *c) {
    close(c->fd);
    c->fd = -1;
}

/* Sends the client's next like; returns 0 when the connection took it whole. */
static int send_like(struct client *c) {
    char request[1024], body[256];
    int body_length = snprintf(body, sizeof body, "{\"uri\":\"%s\",\"deviceId\":\"liker-%d-%ld\"}", uri, c->number, ++c->attempts);
    int length = snprintf(request, sizeof request,
                          "POST /api/party/%s/track/vote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: %d\r\n\r\n%s", parties[(c->number + c->attempts) % party_count], body_length, body);
    c->have = 0;
    return write(c->fd, request, length) == length ? 0 : -1;
}

/* Sends the client's next like, on a new connection when its own refuses it; returns 0 when the client goes on,
   -1 when it was dropped (a second connection refused it too). */
static int send_or_drop(int poll, struct client *c) {
    if (send_like(c) == 0) return 0;
    reconnect(poll, c);
    if (send_like(c) == 0) return 0;
    drop(c);
    return -1;
}

/* The status of the whole answer in the buffer, 0 while it is incomplete. */
static int complete_answer(struct client *c) {
    c->buffer[c->have] = 0;
    char *end = strstr(c->buffer, "\r\n\r\n");
    if (!end) return 0;
    char *length = strcasestr(c->buffer, "content-length:");
    size_t body = length && length < end ? strtoul(length + 15, NULL, 10) : 0;
    if (c->have < (size_t)(end + 4 - c->buffer) + body) return 0;
    return atoi(c->buffer + 9);
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: likeload PORT PARTY_ID URI SECONDS CLIENTS PER_ADDRESS [ACKNOWLEDGED_FILE]\n");
        return 2;
    }
    if (argc == 8 && !(acknowledged_file = fopen(argv[7], "w"))) { perror(argv[7]); return 1; }
    port = atoi(argv[1]); uri = argv[3];
    for (char *next = strtok(argv[2], ","); next && party_count < 256; next = strtok(NULL, ",")) parties[party_count++] = next;
    if (party_count == 0) return 2;
    seconds = atoi(argv[4]); clients = atoi(argv[5]);
    per_address = atoi(argv[6]);
    first_client = getenv("LIKELOAD_FIRST_CLIENT") ? atoi(getenv("LIKELOAD_FIRST_CLIENT")) : 0;
    if (clients < 1 || clients > 256 || first_client < 0 || first_client + clients > 250 || per_address < 1) return 2;
    signal(SIGPIPE, SIG_IGN);  /* a write to a connection the server reset fails instead of ending the run */
    int poll = epoll_create1(0);
    struct client *all = calloc(clients, sizeof *all);
    long acknowledged = 0, sent = 0;
    int open = 0;
    double started = now_s(), deadline = started + seconds;
    for (int i = 0; i < clients; i++) {
        struct client *c = &all[i];
        c->number = first_client + i;
        open_connection(poll, c);
        if (send_or_drop(poll, c) == 0) open++;
    }
    struct epoll_event ready[256];
    while (open > 0) {
        int count = epoll_wait(poll, ready, 256, 1000);
        for (int k = 0; k < count; k++) {
            struct client *c = ready[k].data.ptr;
            ssize_t got = read(c->fd, c->buffer + c->have, sizeof c->buffer - 1 - c->have);
            int status = got > 0 ? (c->have += got, complete_answer(c)) : -1;
            if (status == 0) continue;
            if (status > 0) {
                sent++;
                if (status == 200) {
                    acknowledged++;
                    if (acknowledged_file) fprintf(acknowledged_file, "liker-%d-%ld\n", c->number, c->attempts);
                }
            }
            if (now_s() >= deadline) {
                drop(c);
                open--;
                continue;
            }
            /* A connection the server ended (a killed instance behind nginx) is made anew, as a phone would; so is
               one that refuses the next request. */
            if (status < 0 || ++c->on_address >= per_address) reconnect(poll, c);
            if (send_or_drop(poll, c) != 0) open--;
        }
    }
    if (acknowledged_file) fclose(acknowledged_file);
    printf("acknowledged %ld sent %ld seconds %.3f\n", acknowledged, sent, now_s() - started);
    return 0;
}
