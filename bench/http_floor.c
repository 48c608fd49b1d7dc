/* http-floor PORT: the "floor" of the HTTP benchmark (bench/http_load.py): the least a keep-alive
 * HTTP/1.1 server can do per request of the load client, with no MCP and no HTTP library. It reads
 * one request (head up to the blank line, then Content-Length bytes), and answers the 1 KiB echo
 * with the JSON-RPC result the load client checks: the values of the request's "id" and "text" keys copied into
 * {"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"TEXT"}]}}, in one write.
 * A body without "id" (a notification) gets 202. No header but Content-Length is looked at.
 *
 * Two shapes, picked by the environment (the bench's "modes"):
 *   (default)         one thread, epoll (level-triggered) over non-blocking sockets: the shape of
 *                     our demos' loops, so its cost per request is what a readiness loop costs:
 *                     epoll_wait + read + write.
 *   FLOOR_THREADS=1   a thread per connection with blocking sockets: read + write per request,
 *                     the cheapest possible at one connection (no readiness call).
 * Every socket gets TCP_NODELAY. A benchmark tool, not a server: requests larger than its buffer
 * close the connection. Build: cc -O2 -pthread -o http-floor bench/http_floor.c */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF 65536
#define MAX_FDS 4096

typedef struct {
  int fd;
  size_t len;
  char in[BUF];
  char out[BUF + 512];
} conn;

/* Length of the first complete request in c->in, 0 when incomplete, -1 when it cannot fit. */
static long request_len(const conn *c, const char **body, size_t *body_len) {
  const char *end = memmem(c->in, c->len, "\r\n\r\n", 4), *p;
  size_t head, cl = 0;
  if (!end) return c->len >= BUF ? -1 : 0;
  head = (size_t)(end - c->in) + 4;
  for (p = c->in; p < end; p++) {
    if ((*p == 'C' || *p == 'c') && (size_t)(end - p) > 15 && !strncasecmp(p, "content-length:", 15)) {
      cl = strtoul(p + 15, NULL, 10);
      break;
    }
  }
  if (head + cl > BUF) return -1;
  if (c->len < head + cl) return 0;
  *body = c->in + head;
  *body_len = cl;
  return (long)(head + cl);
}

/* Where the value of "key" starts in b (whitespace and the colon skipped), or NULL. */
static const char *value_of(const char *b, size_t n, const char *key) {
  const char *p = b, *end = b + n, *k;
  size_t kl = strlen(key);
  while ((k = memmem(p, (size_t)(end - p), key, kl))) {
    p = k + kl;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p < end && *p == ':') {
      p++;
      while (p < end && (*p == ' ' || *p == '\t')) p++;
      return p;
    }
  }
  return NULL;
}

/* The answer to one request body, into c->out; its length. */
static size_t answer(conn *c, const char *b, size_t n) {
  static const char accepted[] = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
  const char *id = value_of(b, n, "\"id\""), *idend, *text = value_of(b, n, "\"text\""), *textend;
  char body[BUF + 128];
  size_t bl;
  if (!id) {
    memcpy(c->out, accepted, sizeof accepted - 1);
    return sizeof accepted - 1;
  }
  for (idend = id; idend < b + n && *idend != ',' && *idend != '}' && *idend != ' '; idend++) {}
  text = text && text < b + n && *text == '"' ? text + 1 : b;
  for (textend = text; textend < b + n && *textend != '"'; textend++)
    if (*textend == '\\') textend++;
  if (textend > b + n || text == b) textend = text;
  bl = (size_t)snprintf(body, sizeof body,
                        "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%.*s\"}]}}",
                        (int)(idend - id), id, (int)(textend - text), text);
  if (bl >= sizeof body) bl = sizeof body - 1;
  return (size_t)snprintf(c->out, sizeof c->out,
                          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", bl, body);
}

/* Answers every complete request in c->in; -1 when the connection must close. */
static int serve(conn *c) {
  const char *b;
  size_t n, out;
  long used;
  while ((used = request_len(c, &b, &n)) > 0) {
    size_t off = 0;
    out = answer(c, b, n);
    while (off < out) { /* a 1 KiB answer fits the socket buffer: one write */
      ssize_t w = write(c->fd, c->out + off, out - off);
      if (w <= 0) return -1;
      off += (size_t)w;
    }
    memmove(c->in, c->in + used, c->len - (size_t)used);
    c->len -= (size_t)used;
  }
  return used < 0 ? -1 : 0;
}

static void *thread_main(void *arg) {
  conn *c = arg;
  for (;;) {
    ssize_t r = read(c->fd, c->in + c->len, BUF - c->len);
    if (r <= 0) break;
    c->len += (size_t)r;
    if (serve(c)) break;
  }
  close(c->fd);
  free(c);
  return NULL;
}

int main(int argc, char **argv) {
  struct sockaddr_in sa = {.sin_family = AF_INET};
  int lfd, one = 1, threads = getenv("FLOOR_THREADS") && *getenv("FLOOR_THREADS") == '1', ep;
  static conn *conns[MAX_FDS];
  struct epoll_event ev, evs[256];
  if (argc != 2) {
    fprintf(stderr, "usage: http-floor PORT\n");
    return 2;
  }
  sa.sin_port = htons((unsigned short)atoi(argv[1]));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  lfd = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 512)) {
    perror("http-floor: listen");
    return 1;
  }
  if (threads) {
    for (;;) {
      int fd = accept(lfd, NULL, NULL);
      pthread_t t;
      conn *c;
      if (fd < 0) continue;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      c = calloc(1, sizeof *c);
      c->fd = fd;
      if (pthread_create(&t, NULL, thread_main, c)) {
        close(fd);
        free(c);
        continue;
      }
      pthread_detach(t);
    }
  }
  ep = epoll_create1(0);
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  for (;;) {
    int n = epoll_wait(ep, evs, 256, -1), i;
    for (i = 0; i < n; i++) {
      int fd = evs[i].data.fd;
      conn *c;
      ssize_t r;
      if (fd == lfd) {
        int cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
        if (cfd < 0) continue;
        if (cfd >= MAX_FDS) {
          close(cfd);
          continue;
        }
        setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!conns[cfd]) conns[cfd] = malloc(sizeof(conn));
        conns[cfd]->fd = cfd;
        conns[cfd]->len = 0;
        ev.events = EPOLLIN;
        ev.data.fd = cfd;
        epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
        continue;
      }
      c = conns[fd];
      r = read(fd, c->in + c->len, BUF - c->len);
      if (r > 0) c->len += (size_t)r;
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR) || (r > 0 && serve(c))) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
      }
    }
  }
}
