/* picomcp-demo-c --http 127.0.0.1:PORT: the demo over Streamable HTTP (path /mcp) on one thread: a poll(2) loop
 * over picomcp's HTTP/1.1 codec (picomcp_http_connection) and endpoint (picomcp_endpoint). No protocol logic
 * here: the codec parses requests and frames responses, the endpoint applies every MCP rule of HTTP and names
 * the session slot a body goes to; this file moves bytes between sockets and those two, and runs the demo's
 * handlers (picomcp_demo.c) on the slot's session. Memory: one calloc at start, nothing allocated after. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "demo.h"
#define CONNS 64   /* connections at once (one more is answered 503) */
#define STREAMS 64 /* responses in progress at once */
#define HEAD_ROOM 16384
enum { IDLE, STREAM, DONE, CLOSING }; /* reading requests; serving `stream`; response out: finish; error out: close */
typedef struct { int fd, state; picomcp_http_connection *c; uint8_t *out; size_t len, off; uint64_t stream; } conn;
static picomcp_endpoint *ep;
static conn conns[CONNS];
static picomcp_session *sessions[HTTP_SESSIONS];
static uint8_t *smem[HTTP_SESSIONS], *cmem[CONNS];
static bool live[HTTP_SESSIONS], zero[HTTP_SESSIONS]; /* zero: the memory was never used (init_zeroed) */
static const picomcp_config *scfg;
static size_t ssize, csize, out_cap, served;
static int urandom = -1;
picomcp_endpoint *auth_ep; uint64_t granted;
void http_flush(void) { picomcp_endpoint_collect(ep, now_ms(), served, sess); }
/* Serves the session of `slot` from now on, a new one first when `fresh` (or none is there). */
static int use(size_t slot, bool fresh) {
  if (fresh || !live[slot]) {
    if (live[slot]) picomcp_session_deinit(sessions[slot]);
    live[slot] = !(zero[slot] ? picomcp_session_init_zeroed : picomcp_session_init)(smem[slot], ssize, scfg, now_ms(), &sessions[slot]);
    zero[slot] = false; fresh = true;
    if (!live[slot]) return -1;
  }
  served = slot; demo_select(slot, sessions[slot], fresh);
  return 0;
}
/* Fresh random bytes for one request (the endpoint asks for new ones each time): /dev/urandom read 4 KiB at a
 * time, each byte handed out once, so one read(2) per 256 requests instead of one per request. */
static void take_entropy(uint8_t *out) {
  static uint8_t pool[4096]; static size_t at = sizeof pool; size_t got = 0;
  if (at + PICOMCP_ENDPOINT_ENTROPY_LEN > sizeof pool) {
    while (got < sizeof pool) {
      ssize_t n = read(urandom, pool + got, sizeof pool - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) { fprintf(stderr, "picomcp-demo-c: no entropy\n"); exit(1); }
      got += (size_t)n;
    }
    at = 0;
  }
  memcpy(out, pool + at, PICOMCP_ENDPOINT_ENTROPY_LEN); memset(pool + at, 0, PICOMCP_ENDPOINT_ENTROPY_LEN);
  at += PICOMCP_ENDPOINT_ENTROPY_LEN;
}
static void drop(conn *k) {
  if (k->state == STREAM) picomcp_endpoint_detach(ep, k->stream);
  close(k->fd); picomcp_http_connection_deinit(k->c); k->fd = -1;
}
/* Sends what is pending; -1 when the peer is gone. */
static int send_out(conn *k) {
  while (k->off < k->len) {
    ssize_t n = send(k->fd, k->out + k->off, k->len - k->off, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (n <= 0) return -1;
    k->off += (size_t)n;
  }
  k->off = k->len = 0;
  return 0;
}
/* The body of a POST for the slot's session: the demo answers, the endpoint collects. -1: the session stays busy. */
static int deliver(const picomcp_http_request *rq, uint64_t now) {
  int i;
  for (i = 0; i < 2; i++) {
    picomcp_status st = picomcp_session_handle_message(sess, now, rq->body, rq->body_len);
    drain_events(); /* its flush collects */
    if (st == PICOMCP_STATUS_OK) return 0;
  }
  return -1;
}
static void answer(conn *k, const picomcp_http_request *rq, uint64_t now) {
  static const picomcp_http_head busy = {.status = 503, .body = PICOMCP_HTTP_BODY_NONE};
  picomcp_http_outcome oc; uint8_t entropy[PICOMCP_ENDPOINT_ENTROPY_LEN]; size_t n = 0, m = 0;
  take_entropy(entropy);
  if (auth_ep) { /* the token is checked before routing; a delivered request's scopes go to the server layer */
    picomcp_principal p; bool found = false;
    picomcp_endpoint_handle_request_auth(ep, now, rq, entropy, (uint64_t)time(NULL), auth_verifier(), NULL, &oc);
    granted = oc.kind != PICOMCP_OUTCOME_KIND_RESPOND && !picomcp_endpoint_principal(ep, &p, &found) && found ? p.granted : 0;
  } else picomcp_endpoint_handle_request(ep, now, rq, entropy, &oc);
  k->state = DONE;
  if (oc.kind == PICOMCP_OUTCOME_KIND_DELIVER && (use(oc.slot, oc.fresh) || deliver(rq, now))) {
    if (oc.has_stream) picomcp_endpoint_detach(ep, oc.stream);
    oc.has_stream = false; oc.head = busy;
  }
  if (oc.kind != PICOMCP_OUTCOME_KIND_RESPOND && oc.has_stream) { k->state = STREAM; k->stream = oc.stream; return; }
  picomcp_http_connection_write_head(k->c, &oc.head, k->out, out_cap, &n); /* out_cap holds any head and error body */
  if (oc.kind == PICOMCP_OUTCOME_KIND_RESPOND) picomcp_http_connection_write_body(k->c, oc.body, oc.body_len, k->out + n, out_cap - n, &m);
  k->len = n + m;
}
/* Moves a connection forward as far as it goes without waiting. */
static void progress(conn *k, uint64_t now) {
  picomcp_http_request rq; picomcp_http_response r; picomcp_http_state cs; picomcp_status st; size_t n;
  while (k->fd >= 0) {
    if (k->state == STREAM) { /* head, body and end gather in k->out and go in one send */
      picomcp_endpoint_poll_response(ep, now, k->stream, &r);
      if (r.kind == PICOMCP_RESPONSE_KIND_WAIT) { if (send_out(k)) drop(k); return; }
      if (r.kind == PICOMCP_RESPONSE_KIND_HEAD) st = picomcp_http_connection_write_head(k->c, &r.head, k->out + k->len, out_cap - k->len, &n);
      else if (r.kind == PICOMCP_RESPONSE_KIND_BODY) st = picomcp_http_connection_write_body(k->c, r.body, r.body_len, k->out + k->len, out_cap - k->len, &n);
      else st = picomcp_http_connection_write_end(k->c, k->out + k->len, out_cap - k->len, &n);
      if (st == PICOMCP_STATUS_BUFFER_TOO_SMALL && k->len) { /* send first; if the socket is full, poll says when */
        if (send_out(k)) { drop(k); return; }
        if (k->len) return;
        continue;
      }
      if (st) { drop(k); return; }
      if (r.kind == PICOMCP_RESPONSE_KIND_BODY) picomcp_endpoint_advance(ep, k->stream, r.body_len);
      if (r.kind == PICOMCP_RESPONSE_KIND_END) k->state = DONE;
      k->len += n;
      continue;
    }
    if (send_out(k)) { drop(k); return; }
    if (k->len) return; /* wait until it is sent */
    if (k->state == CLOSING) { drop(k); return; }
    if (k->state == DONE) { picomcp_http_connection_finish_request(k->c, now); k->state = IDLE; }
    picomcp_http_connection_poll_request(k->c, now, &rq);
    if (rq.kind == PICOMCP_HTTP_POLL_ERROR) {
      picomcp_http_write_error_response(rq.error_status, true, k->out, out_cap, &k->len); k->state = CLOSING;
    } else if (rq.kind == PICOMCP_HTTP_POLL_REQUEST) {
      answer(k, &rq, now);
    } else {
      picomcp_http_connection_state(k->c, &cs);
      if (cs.closed) { drop(k); return; }
      if (!cs.wants_continue) return;
      picomcp_http_connection_write_continue(k->c, now, k->out, out_cap, &k->len);
    }
  }
}
static void accept_one(int lfd, uint64_t now) {
  static const char full[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  int fd = accept(lfd, NULL, NULL), one = 1, i;
  if (fd < 0) return;
  for (i = 0; i < CONNS && conns[i].fd >= 0; i++) {}
  if (i == CONNS) { if (write(fd, full, sizeof full - 1) < 0) {} close(fd); return; }
  fcntl(fd, F_SETFL, O_NONBLOCK); setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (picomcp_http_connection_init(cmem[i], csize, NULL, now, &conns[i].c)) { close(fd); return; }
  conns[i].fd = fd; conns[i].state = IDLE; conns[i].len = conns[i].off = 0;
}
static int listen_on(const char *addr) {
  char host[64]; const char *colon = strrchr(addr, ':'); struct sockaddr_in sa; int fd, one = 1;
  memset(&sa, 0, sizeof sa); sa.sin_family = AF_INET;
  if (!colon || (size_t)(colon - addr) >= sizeof host) return -1;
  memcpy(host, addr, (size_t)(colon - addr)); host[colon - addr] = 0;
  sa.sin_port = htons((uint16_t)atoi(colon + 1));
  if (inet_pton(AF_INET, host, &sa.sin_addr) != 1 || (fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) return -1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 128)) { close(fd); return -1; }
  fcntl(fd, F_SETFL, O_NONBLOCK);
  return fd;
}
int http_serve(const char *addr, const picomcp_config *cfg, size_t session_size) {
  picomcp_endpoint_config ec; picomcp_http_limits lim; struct pollfd pfd[1 + CONNS];
  size_t esize, align, i, rx; uint8_t *mem; int lfd = listen_on(addr);
  if (lfd < 0) { fprintf(stderr, "picomcp-demo-c: cannot listen on %s: %s\n", addr, strerror(errno)); return 1; }
  if ((urandom = open("/dev/urandom", O_RDONLY)) < 0) { fprintf(stderr, "picomcp-demo-c: no /dev/urandom\n"); return 1; }
  picomcp_endpoint_config_init(&ec);
  ec.max_body = cfg->max_line; ec.versions = cfg->versions; ec.slots = HTTP_SESSIONS; ec.streams = STREAMS;
  ec.server = &server; ec.auth = auth_setup(addr); /* Mcp-Param-* from the tools' x-mcp-header; --auth-issuer */
  picomcp_http_limits_init(&lim);
  rx = lim.max_head_bytes + cfg->max_line + 1024; out_cap = cfg->max_line + 4096 + HEAD_ROOM;
  if (picomcp_endpoint_storage_size(&ec, &esize, &align) || picomcp_http_connection_storage_size(rx, &csize, &align)) return 1;
  scfg = cfg; ssize = (session_size + 7) & ~(size_t)7; esize = (esize + 7) & ~(size_t)7; csize = (csize + 7) & ~(size_t)7;
  /* Every byte this server uses, zeroed: calloc's fresh pages cost no memory until touched. */
  if (!(mem = calloc(1, esize + HTTP_SESSIONS * ssize + CONNS * (csize + out_cap)))) { fprintf(stderr, "picomcp-demo-c: out of memory\n"); return 1; }
  if (picomcp_endpoint_init_zeroed(mem, esize, &ec, &ep)) { fprintf(stderr, "picomcp-demo-c: endpoint refused its configuration\n"); return 1; }
  for (i = 0; i < HTTP_SESSIONS; i++) smem[i] = mem + esize + i * ssize, zero[i] = true;
  for (i = 0; i < CONNS; i++) cmem[i] = mem + esize + HTTP_SESSIONS * ssize + i * (csize + out_cap), conns[i].out = cmem[i] + csize, conns[i].fd = -1;
  if (ec.auth) auth_ep = ep;
  fprintf(stderr, "picomcp-demo-c: serving Streamable HTTP on http://%s/mcp%s\n", addr, ec.auth ? " (OAuth 2.1 protected resource)" : "");
  for (;;) {
    uint64_t now = now_ms(), next = PICOMCP_NO_DEADLINE, d; bool in_use; int n;
    picomcp_endpoint_poll_timeout(ep, &d);
    if (d <= now) picomcp_endpoint_handle_timeout(ep, now), picomcp_endpoint_poll_timeout(ep, &d);
    if (d < next) next = d;
    for (i = 0; i < HTTP_SESSIONS; i++) { /* timers of each live session: sleep progress and answers, expiries */
      if (!live[i]) continue;
      picomcp_endpoint_slot_in_use(ep, i, &in_use);
      if (!in_use) { picomcp_session_deinit(sessions[i]); live[i] = false; continue; } /* expired or deleted */
      use(i, false);
      picomcp_session_poll_timeout(sess, &d);
      if (d <= now) picomcp_session_handle_timeout(sess, now), picomcp_session_poll_timeout(sess, &d);
      if (d < next) next = d;
      if ((d = run_timers(now)) < next) next = d;
      if ((d = run_watch(now)) < next) next = d;
      drain_events();
    }
    for (i = 0; i < CONNS; i++) {
      conn *k = &conns[i];
      if (k->fd < 0) continue;
      picomcp_http_connection_poll_timeout(k->c, &d);
      if (d <= now) picomcp_http_connection_handle_timeout(k->c, now), picomcp_http_connection_poll_timeout(k->c, &d);
      progress(k, now);
      if (k->fd >= 0 && d < next) next = d;
    }
    pfd[0].fd = lfd; pfd[0].events = POLLIN;
    for (i = 0; i < CONNS; i++) {
      uint8_t *p; size_t room = 0;
      pfd[1 + i].fd = conns[i].fd; pfd[1 + i].events = conns[i].len ? POLLOUT : 0;
      if (conns[i].fd >= 0 && !picomcp_http_connection_receive_buffer(conns[i].c, &p, &room) && room) pfd[1 + i].events |= POLLIN;
    }
    now = now_ms();
    n = poll(pfd, 1 + CONNS, next == PICOMCP_NO_DEADLINE ? 1000 : next <= now ? 0 : next - now > 1000 ? 1000 : (int)(next - now));
    if (n < 0 && errno != EINTR) { fprintf(stderr, "picomcp-demo-c: poll: %s\n", strerror(errno)); return 1; }
    if (n > 0 && (pfd[0].revents & POLLIN)) accept_one(lfd, now_ms());
    for (i = 0; n > 0 && i < CONNS; i++) {
      conn *k = &conns[i]; uint8_t *p; size_t room; ssize_t got;
      if (k->fd < 0 || !(pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (picomcp_http_connection_receive_buffer(k->c, &p, &room) || !room) continue;
      got = read(k->fd, p, room);
      if (got > 0) picomcp_http_connection_commit_received(k->c, now_ms(), (size_t)got);
      else if (got == 0 && k->state == STREAM) drop(k); /* the client went away from its stream */
      else if (got == 0 || (errno != EAGAIN && errno != EINTR)) picomcp_http_connection_handle_eof(k->c, now_ms());
    }
  }
}
