/* The benchmark's like load (issue 28): CLIENTS threads, each on a keep-alive connection, toggling likes as fast as
   the server answers, every like by a new device. The server limits likes per address, so a thread moves to a
   fresh loopback source address (a new connection) every PER_ADDRESS likes. C, like sseclient.c: the Python
   client it replaces spent a core of its own on the load and so capped what it measured.

   usage: likeload PORT PARTY_ID URI SECONDS CLIENTS PER_ADDRESS [ACKNOWLEDGED_FILE]
     LIKELOAD_FIRST_CLIENT=N numbers the clients from N (their source addresses and device ids): a second run
     within a minute of the first would otherwise meet the per-address limits its addresses used up.
     Prints "acknowledged COUNT sent COUNT seconds S": the likes answered 200, the requests sent, the time taken.
     With ACKNOWLEDGED_FILE, each acknowledged like's device id goes there, one a line (the kill -9 runs of
     cluster_bench.py look each one up in the database). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port, seconds, clients, per_address, first_client;
static const char *party, *uri;
static double deadline;
static FILE *acknowledged_file;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

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

/* Reads one response; returns its status, or -1 when the connection ended. */
static int read_response(int fd, char *buffer, size_t size) {
    size_t have = 0;
    char *end = NULL;
    while (!end) {
        ssize_t got = read(fd, buffer + have, size - 1 - have);
        if (got <= 0) return -1;
        have += got;
        buffer[have] = 0;
        end = strstr(buffer, "\r\n\r\n");
    }
    int status = atoi(buffer + 9);
    char *length = strcasestr(buffer, "content-length:");
    size_t body = length && length < end ? strtoul(length + 15, NULL, 10) : 0;
    size_t read_body = have - (end + 4 - buffer);
    while (read_body < body) {
        ssize_t got = read(fd, buffer, size - 1);
        if (got <= 0) return -1;
        read_body += got;
    }
    return status;
}

/* `attempts` names the devices: a like whose answer was lost (a killed instance) may have committed, and the same
   device liking again would take it back. */
struct totals { long acknowledged, sent, attempts; };

static void *run(void *argument) {
    int client = first_client + (int)(long)argument;
    struct totals *totals = calloc(1, sizeof *totals);
    char request[1024], body[256], buffer[8192];
    for (int round = 0; now_s() < deadline; round++) {
        int fd = connect_from(client, round);
        for (int i = 0; i < per_address && now_s() < deadline; i++) {
            int body_length = snprintf(body, sizeof body, "{\"uri\":\"%s\",\"deviceId\":\"liker-%d-%ld\"}", uri, client, ++totals->attempts);
            int length = snprintf(request, sizeof request,
                                  "POST /api/party/%s/track/vote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                  "Content-Length: %d\r\n\r\n%s", party, body_length, body);
            if (write(fd, request, length) != length) break;
            int status = read_response(fd, buffer, sizeof buffer);
            if (status < 0) break;
            totals->sent++;
            if (status == 200) {
                totals->acknowledged++;
                if (acknowledged_file) fprintf(acknowledged_file, "liker-%d-%ld\n", client, totals->attempts);
            }
        }
        close(fd);
    }
    return totals;
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: likeload PORT PARTY_ID URI SECONDS CLIENTS PER_ADDRESS [ACKNOWLEDGED_FILE]\n");
        return 2;
    }
    if (argc == 8 && !(acknowledged_file = fopen(argv[7], "w"))) { perror(argv[7]); return 1; }
    port = atoi(argv[1]); party = argv[2]; uri = argv[3]; seconds = atoi(argv[4]); clients = atoi(argv[5]);
    per_address = atoi(argv[6]);
    first_client = getenv("LIKELOAD_FIRST_CLIENT") ? atoi(getenv("LIKELOAD_FIRST_CLIENT")) : 0;
    if (first_client < 0 || first_client + clients > 250) return 2;
    pthread_t threads[256];
    if (clients < 1 || clients > 256) return 2;
    double started = now_s();
    deadline = started + seconds;
    for (long i = 0; i < clients; i++) pthread_create(&threads[i], NULL, run, (void *)i);
    long acknowledged = 0, sent = 0;
    for (int i = 0; i < clients; i++) {
        struct totals *totals;
        pthread_join(threads[i], (void **)&totals);
        acknowledged += totals->acknowledged;
        sent += totals->sent;
        free(totals);
    }
    if (acknowledged_file) fclose(acknowledged_file);
    printf("acknowledged %ld sent %ld seconds %.3f\n", acknowledged, sent, now_s() - started);
    return 0;
}
