/* The benchmark's SSE subscriber swarm: N event-stream connections on one epoll in one thread, the same client for
   our server and for nchan. A Python client saturated its own core before either server did (its p50 was the
   time Python took to read 2,000 sockets), so the figures measured the client; this one reads an event on 2,000
   sockets in a few milliseconds.

   usage: sseclient PORT SUBSCRIBE_PATH SUBSCRIBERS EVENTS MARKER PUBLISH_PATH PUBLISH_BODY
     PORT may be a comma-separated list (several instances): the streams take the ports in turn and the
     publish goes to the first.
     PUBLISH_BODY may hold {i}, replaced by the event's number. Prints "ready" once every stream has its
     headers, waits for a line on stdin, publishes EVENTS times (each when the previous one reached everyone,
     plus 250 ms) and prints "deliveries COUNT p50 MS p99 MS", latency from writing the publish request to
     reading MARKER on each stream. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct stream { int fd; int ready; int seen; char tail[64]; size_t tail_len; };

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int open_socket(int port, int index) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { perror("socket"); exit(1); }
    struct sockaddr_in local = { .sin_family = AF_INET };
    char address[32];
    snprintf(address, sizeof address, "127.0.%d.1", 100 + index / 5000); /* 64K ports per source address */
    inet_pton(AF_INET, address, &local.sin_addr);
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) { perror("bind"); exit(1); }
    struct sockaddr_in remote = { .sin_family = AF_INET, .sin_port = htons(port) };
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (connect(fd, (struct sockaddr *)&remote, sizeof remote) != 0) { perror("connect"); exit(1); }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void write_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written <= 0) { perror("write"); exit(1); }
        text += written;
        length -= (size_t)written;
    }
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 8) { fprintf(stderr, "usage: see the file's comment\n"); return 2; }
    int ports[16], port_count = 0, count = atoi(argv[3]), events = atoi(argv[4]);
    for (char *item = strtok(argv[1], ","); item && port_count < 16; item = strtok(NULL, ",")) ports[port_count++] = atoi(item);
    if (port_count == 0) return 2;
    const char *path = argv[2], *marker = argv[5], *publish_path = argv[6], *template = argv[7];
    size_t marker_len = strlen(marker);
    struct stream *streams = calloc((size_t)count, sizeof *streams);
    double *latencies = calloc((size_t)count * (size_t)events, sizeof *latencies);
    double *sent = calloc((size_t)events, sizeof *sent);
    size_t deliveries = 0;
    int epoll = epoll_create1(0);
    char request[1024];
    int request_len = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", path);
    for (int i = 0; i < count; i++) {
        streams[i].fd = open_socket(ports[i % port_count], i);
        write_all(streams[i].fd, request, (size_t)request_len);
        fcntl(streams[i].fd, F_SETFL, O_NONBLOCK);
        struct epoll_event interest = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        epoll_ctl(epoll, EPOLL_CTL_ADD, streams[i].fd, &interest);
    }
    int ready = 0, publishing = -1, current = -1, reached = 0;
    double deadline = now_ms() + 120000;
    static char buffer[65536];
    struct epoll_event happened[512];
    for (;;) {
        if (ready == count && current == -1) {
            printf("ready\n");
            fflush(stdout);
            char line[16];
            if (!fgets(line, sizeof line, stdin)) return 1;
            current = 0;
        }
        if (current >= 0 && publishing < 0 && (current == 0 || reached == count)) {
            if (current == events) break;
            if (current > 0) usleep(250000);
            char body[1024], publish[2048];
            const char *slot = strstr(template, "{i}");
            if (slot) snprintf(body, sizeof body, "%.*s%d%s", (int)(slot - template), template, current, slot + 3);
            else snprintf(body, sizeof body, "%s", template);
            int length = snprintf(publish, sizeof publish,
                                  "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                  "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", publish_path, strlen(body), body);
            publishing = open_socket(ports[0], count);
            reached = 0;
            sent[current] = now_ms();
            write_all(publishing, publish, (size_t)length);
            fcntl(publishing, F_SETFL, O_NONBLOCK);
            struct epoll_event interest = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
            epoll_ctl(epoll, EPOLL_CTL_ADD, publishing, &interest);
            deadline = now_ms() + 30000;
            current++;
        }
        if (now_ms() > deadline) { fprintf(stderr, "timed out: %d of %d streams\n", current ? reached : ready, count); return 1; }
        int n = epoll_wait(epoll, happened, 512, 100);
        double at = now_ms();
        for (int k = 0; k < n; k++) {
            if (happened[k].data.u32 == UINT32_MAX) { /* the publish answer: read it to the end */
                ssize_t got;
                while ((got = read(publishing, buffer, sizeof buffer)) > 0) {}
                if (got == 0 || (got < 0 && errno != EAGAIN)) { close(publishing); publishing = -1; }
                continue;
            }
            struct stream *s = &streams[happened[k].data.u32];
            ssize_t got = read(s->fd, buffer + sizeof s->tail, sizeof buffer - sizeof s->tail);
            if (got <= 0) {
                if (got < 0 && errno == EAGAIN) continue;
                fprintf(stderr, "stream %u closed\n", happened[k].data.u32);
                return 1;
            }
            /* Search the new bytes with the previous read's tail in front, so a marker split by reads counts once. */
            char *start = buffer + sizeof s->tail - s->tail_len;
            memcpy(start, s->tail, s->tail_len);
            size_t length = s->tail_len + (size_t)got;
            if (!s->ready && memmem(start, length, "\r\n\r\n", 4)) { s->ready = 1; ready++; }
            for (char *hit = start; (hit = memmem(hit, length - (size_t)(hit - start), marker, marker_len)); hit += marker_len) {
                if (s->seen < current) {
                    latencies[deliveries++] = at - sent[s->seen];
                    if (++s->seen == current) reached++;
                }
            }
            s->tail_len = length < marker_len - 1 ? length : marker_len - 1;
            memcpy(s->tail, start + length - s->tail_len, s->tail_len);
        }
    }
    qsort(latencies, deliveries, sizeof *latencies, compare);
    printf("deliveries %zu p50 %.2f p99 %.2f\n", deliveries, latencies[deliveries / 2], latencies[deliveries * 99 / 100]);
    return 0;
}
