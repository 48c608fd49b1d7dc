/* picomcp-demo-c: the C demo server over stdio (the C subset of the demo contract).
 *
 * Tools echo, add, sleep, test_simple_text, test_error_handling; resource
 * test://static-text; prompts test_simple_prompt, test_prompt_with_arguments; logging.
 * Both eras: the session answers initialize / server/discover, ping and logging/setLevel
 * itself; everything else arrives as a picomcp_event. Nothing here parses JSON-RPC.
 *
 * Loop: read(2) stdin -> picomcp_session_handle_bytes -> events -> write(2) stdout, with
 * poll(2) sleeping until input or the next timer (sleep's progress and answer). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "picomcp.h"

#define S(lit) picomcp_str_from_cstr(lit)
#define SLOTS 64 /* requests in flight, and so sleep timers */
#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]}"
#define TOOL(n, d, in) "{\"name\":\"" n "\",\"description\":\"" d "\",\"inputSchema\":" in
#define TOOLS_A "{\"tools\":[" TOOL("echo", "Returns its text", OBJ("\"text\":{\"type\":\"string\"}", "\"text\"")) "}," \
  TOOL("add", "Adds two numbers", OBJ("\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}", "\"a\",\"b\""))
#define TOOLS_B "}," TOOL("sleep", "Waits ms milliseconds, with progress and cancellation", \
  OBJ("\"ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000},\"steps\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000}", "\"ms\"")) "}," \
  TOOL("test_simple_text", "Returns simple text content", OBJ("", "")) "}," \
  TOOL("test_error_handling", "Always returns a tool error", OBJ("", "")) "}]}"
static const char *TOOLS_OLD = TOOLS_A TOOLS_B; /* before 2025-06-18: no outputSchema */
static const char *TOOLS_NEW = TOOLS_A ",\"outputSchema\":" OBJ("\"sum\":{\"type\":\"number\"}", "\"sum\"") TOOLS_B;
static const char *RESOURCES = "{\"resources\":[{\"uri\":\"test://static-text\",\"name\":\"static-text\","
  "\"description\":\"A static text resource\",\"mimeType\":\"text/plain\"}]}";
static const char *STATIC_TEXT = "{\"contents\":[{\"uri\":\"test://static-text\",\"mimeType\":\"text/plain\","
  "\"text\":\"This is the content of the static text resource.\"}]}";
static const char *PROMPTS = "{\"prompts\":[{\"name\":\"test_simple_prompt\",\"description\":\"A simple prompt\"},"
  "{\"name\":\"test_prompt_with_arguments\",\"description\":\"A prompt with arguments\",\"arguments\":["
  "{\"name\":\"arg1\",\"description\":\"First argument\",\"required\":true},"
  "{\"name\":\"arg2\",\"description\":\"Second argument\",\"required\":true}]}]}";

typedef struct { int used; uint32_t id; uint64_t start, due, ms; int64_t steps, done; } timer;
static picomcp_session *sess;
static timer timers[SLOTS];
static int diag_level = 1; /* 0 error, 1 warn, 2 info, 3 debug */
static const char *LEVELS[] = {"error", "warn", "info", "debug"};

static void diag(int level, const char *fmt, ...) {
  va_list ap;
  if (level > diag_level) return;
  fprintf(stderr, "picomcp-demo-c: %s: ", LEVELS[level]);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

static void status_diag(const char *what, picomcp_status st) {
  char msg[160];
  picomcp_status_describe(st, msg, sizeof msg);
  diag(1, "%s: %s", what, msg);
}

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* Writes everything the session wants to send, straight from its queue. */
static void flush(void) {
  picomcp_str p;
  while (picomcp_session_pending_transmit(sess, &p) == PICOMCP_STATUS_OK && p.len > 0) {
    ssize_t n = write(STDOUT_FILENO, p.ptr, p.len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { diag(0, "cannot write stdout: %s", strerror(errno)); exit(1); }
    picomcp_session_advance_transmit(sess, (size_t)n);
  }
}

static void error(uint32_t id, int32_t code, const char *msg) {
  picomcp_session_respond_error(sess, id, code, S(msg), S(NULL));
}

/* Answers a request with a JSON object; a full transmit queue is drained once. */
static void answer(uint32_t id, picomcp_str result) {
  picomcp_status st = picomcp_session_respond(sess, id, result);
  if (st == PICOMCP_STATUS_QUEUE_FULL) { flush(); st = picomcp_session_respond(sess, id, result); }
  if (st != PICOMCP_STATUS_OK && st != PICOMCP_STATUS_UNKNOWN_REQUEST) {
    status_diag("cannot answer", st);
    error(id, -32603, "Internal error: the result does not fit");
  }
}

static uint32_t version(void) { uint32_t v = 0; picomcp_session_version(sess, &v); return v; }
/* Whether the negotiated revision has a feature (the core's table, not a revision list). */
static bool has(uint32_t feature) { bool b = false; picomcp_version_has(version(), feature, &b); return b; }
static int is(picomcp_str json_string, const char *text) {
  bool eq = false;
  return picomcp_json_string_eq(json_string, S(text), &eq) == PICOMCP_STATUS_OK && eq;
}

/* Tools: {"content":[{"type":"text","text":T}],"isError"?,"structuredContent"?}.
 * Prompts: {"messages":[{"role":"user","content":{"type":"text","text":T}}]}.
 * Written straight into the session's transmit queue by picomcp_session_respond_with;
 * `raw`: T is a JSON string view (the request's own text), copied byte for byte. */
typedef struct { int prompt, raw, is_error; picomcp_str text; const char *structured; } text_args;

static void write_text(picomcp_writer *w, void *ctx) {
  const text_args *a = ctx;
  picomcp_writer_begin_object(w);
  picomcp_writer_key(w, S(a->prompt ? "messages" : "content"));
  picomcp_writer_begin_array(w);
  picomcp_writer_begin_object(w);
  if (a->prompt) { picomcp_writer_key(w, S("role")); picomcp_writer_string(w, S("user")); picomcp_writer_key(w, S("content")); picomcp_writer_begin_object(w); }
  picomcp_writer_key(w, S("type")); picomcp_writer_string(w, S("text"));
  picomcp_writer_key(w, S("text"));
  if (a->raw) picomcp_writer_raw(w, a->text); else picomcp_writer_string(w, a->text);
  if (a->prompt) picomcp_writer_end_object(w);
  picomcp_writer_end_object(w);
  picomcp_writer_end_array(w);
  if (a->is_error) { picomcp_writer_key(w, S("isError")); picomcp_writer_bool(w, true); }
  if (a->structured) { picomcp_writer_key(w, S("structuredContent")); picomcp_writer_raw(w, S(a->structured)); }
  picomcp_writer_end_object(w);
}

static void text_result(uint32_t id, int prompt, picomcp_str text, int raw, int is_error, const char *structured) {
  text_args a;
  picomcp_status st;
  a.prompt = prompt; a.raw = raw; a.is_error = is_error; a.text = text; a.structured = structured;
  st = picomcp_session_respond_with(sess, id, write_text, &a);
  if (st == PICOMCP_STATUS_QUEUE_FULL) { flush(); st = picomcp_session_respond_with(sess, id, write_text, &a); }
  if (st != PICOMCP_STATUS_OK && st != PICOMCP_STATUS_UNKNOWN_REQUEST) {
    status_diag("cannot answer", st);
    error(id, -32603, "Internal error: the result does not fit");
  }
}

/* Reads a value by JSON Pointer (one validation of `json` for the whole path). */
static int at(picomcp_str json, const char *pointer, picomcp_str *v, uint32_t type) {
  uint32_t t = 0;
  return picomcp_json_pointer(json, S(pointer), v, &t) == PICOMCP_STATUS_OK && (t == type || !type);
}

/* Bad arguments: -32602 when `arguments` is not an object; else a tool error from
 * 2025-11-25 on, -32602 before. */
static void invalid(uint32_t id, picomcp_str params, const char *msg) {
  picomcp_str args;
  if (at(params, "/arguments", &args, 0) && !at(params, "/arguments", &args, PICOMCP_JSON_TYPE_OBJECT))
    error(id, -32602, "Invalid params: `arguments` must be an object");
  else if (has(PICOMCP_FEATURE_ARGUMENT_ERRORS_AS_TOOL_RESULTS)) text_result(id, 0, S(msg), 0, 1, NULL);
  else error(id, -32602, msg);
}

static void sleep_tool(uint32_t id, picomcp_str params) {
  picomcp_str v;
  picomcp_request_info info;
  int64_t ms, steps = 1;
  double d;
  int t;
  /* A whole number in any notation (10, 10.0, 1e1), like the other demos. */
  if (!at(params, "/arguments/ms", &v, PICOMCP_JSON_TYPE_NUMBER) || picomcp_json_number(v, &d) || !(d >= 0 && d <= 60000) ||
      (double)(ms = (int64_t)d) != d) {
    invalid(id, params, "Invalid arguments: `ms` is required and must be an integer from 0 to 60000"); return;
  }
  if (at(params, "/arguments/steps", &v, 0) && !at(params, "/arguments/steps", &v, PICOMCP_JSON_TYPE_NULL) &&
      (picomcp_json_int(v, &steps) || steps < 0 || steps > 10000)) {
    invalid(id, params, "Invalid arguments: `steps` must be an integer from 0 to 10000"); return;
  }
  if (picomcp_session_request_info(sess, id, &info) || !info.has_progress_token) steps = 0;
  for (t = 0; t < SLOTS && timers[t].used; t++) {}
  if (t == SLOTS) { text_result(id, 0, S("Too many requests in progress"), 0, 1, NULL); return; }
  timers[t].used = 1; timers[t].id = id; timers[t].start = now_ms(); timers[t].ms = (uint64_t)ms;
  timers[t].steps = steps; timers[t].done = 0;
  /* Step k of n at k/(n+1) of the wait, so no progress arrives on top of the answer. */
  timers[t].due = timers[t].start + (uint64_t)ms / (uint64_t)(steps + 1);
}

static void tools_call(uint32_t id, picomcp_str params) {
  picomcp_str name, a, b;
  double x, y;
  char sum[64];
  size_t n = 0;
  picomcp_writer w;
  if (!at(params, "/name", &name, PICOMCP_JSON_TYPE_STRING)) { error(id, -32602, "Invalid params: `name` must be a string"); return; }
  if (is(name, "echo")) {
    if (!at(params, "/arguments/text", &a, PICOMCP_JSON_TYPE_STRING)) invalid(id, params, "Invalid arguments: `text` is required and must be a string");
    else text_result(id, 0, a, 1, 0, NULL);
  } else if (is(name, "add")) {
    if (!at(params, "/arguments/a", &a, PICOMCP_JSON_TYPE_NUMBER) || picomcp_json_number(a, &x)) { invalid(id, params, "Invalid arguments: `a` is required and must be a number"); return; }
    if (!at(params, "/arguments/b", &b, PICOMCP_JSON_TYPE_NUMBER) || picomcp_json_number(b, &y)) { invalid(id, params, "Invalid arguments: `b` is required and must be a number"); return; }
    if (!isfinite(x + y)) { text_result(id, 0, S("The sum is too large to represent"), 0, 1, NULL); return; }
    picomcp_writer_init(&w, sum, sizeof sum - 1); /* {"sum":A+B}: the text block and structuredContent */
    picomcp_writer_begin_object(&w); picomcp_writer_key(&w, S("sum")); picomcp_writer_double(&w, x + y); picomcp_writer_end_object(&w);
    if (picomcp_writer_finish(&w, &n)) n = 0;
    sum[n] = 0;
    text_result(id, 0, S(sum), 0, 0, has(PICOMCP_FEATURE_STRUCTURED_CONTENT) ? sum : NULL);
  } else if (is(name, "sleep")) {
    sleep_tool(id, params);
  } else if (is(name, "test_simple_text")) {
    text_result(id, 0, S("This is a simple text response for testing."), 0, 0, NULL);
  } else if (is(name, "test_error_handling")) {
    text_result(id, 0, S("This tool intentionally returns an error for testing"), 0, 1, NULL);
  } else {
    error(id, -32602, "Invalid params: unknown tool");
  }
}

/* Sends due progress notifications and sleep answers. */
static void run_timers(uint64_t now) {
  int t;
  for (t = 0; t < SLOTS; t++) {
    timer *tm = &timers[t];
    while (tm->used && tm->due <= now) {
      if (tm->done < tm->steps) {
        tm->done++;
        if (picomcp_session_progress(sess, tm->id, (double)tm->done, (double)tm->steps, S(NULL)) == PICOMCP_STATUS_QUEUE_FULL) {
          flush();
          picomcp_session_progress(sess, tm->id, (double)tm->done, (double)tm->steps, S(NULL));
        }
        tm->due = tm->start + (tm->done < tm->steps ? tm->ms * (uint64_t)(tm->done + 1) / (uint64_t)(tm->steps + 1) : tm->ms);
      } else {
        picomcp_session_log_for_text(sess, tm->id, PICOMCP_LOG_LEVEL_INFO, S("sleep"), S("slept"), NULL);
        text_result(tm->id, 0, S("slept"), 0, 0, NULL);
        tm->used = 0;
      }
    }
  }
}

static void prompts_get(uint32_t id, picomcp_str params) {
  picomcp_str name, v;
  char a1[512], a2[512], text[1200];
  size_t n;
  if (!at(params, "/name", &name, PICOMCP_JSON_TYPE_STRING)) { error(id, -32602, "Invalid params: `name` must be a string"); return; }
  if (at(params, "/arguments", &v, 0) && !at(params, "/arguments", &v, PICOMCP_JSON_TYPE_OBJECT) &&
      !at(params, "/arguments", &v, PICOMCP_JSON_TYPE_NULL)) {
    error(id, -32602, "Invalid params: `arguments` must be an object"); return;
  }
  if (is(name, "test_simple_prompt")) {
    text_result(id, 1, S("This is a simple prompt for testing."), 0, 0, NULL);
  } else if (is(name, "test_prompt_with_arguments")) {
    if (!at(params, "/arguments/arg1", &v, PICOMCP_JSON_TYPE_STRING) || picomcp_json_string(v, a1, sizeof a1, &n) ||
        !at(params, "/arguments/arg2", &v, PICOMCP_JSON_TYPE_STRING) || picomcp_json_string(v, a2, sizeof a2, &n)) {
      error(id, -32602, "Invalid params: arguments `arg1` and `arg2` are required strings (up to 511 bytes)"); return;
    }
    snprintf(text, sizeof text, "Prompt with arguments: arg1='%s', arg2='%s'", a1, a2);
    text_result(id, 1, S(text), 0, 0, NULL);
  } else {
    error(id, -32602, "Invalid params: unknown prompt");
  }
}

/* A pre-rendered list; we never hand out cursors, so any cursor is invalid. */
static void list(uint32_t id, picomcp_str params, const char *json) {
  picomcp_str cursor;
  if (at(params, "/cursor", &cursor, 0) && !at(params, "/cursor", &cursor, PICOMCP_JSON_TYPE_NULL)) error(id, -32602, "Invalid params: unknown cursor");
  else answer(id, S(json));
}

static void on_request(const picomcp_event *e) {
  picomcp_str p = e->json.ptr ? e->json : S("{}"), uri;
  switch (e->method) {
  case PICOMCP_METHOD_TOOLS_LIST: list(e->id, p, has(PICOMCP_FEATURE_OUTPUT_SCHEMA) ? TOOLS_NEW : TOOLS_OLD); break;
  case PICOMCP_METHOD_TOOLS_CALL: tools_call(e->id, p); break;
  case PICOMCP_METHOD_RESOURCES_LIST: list(e->id, p, RESOURCES); break;
  case PICOMCP_METHOD_RESOURCES_TEMPLATES_LIST: list(e->id, p, "{\"resourceTemplates\":[]}"); break;
  case PICOMCP_METHOD_RESOURCES_READ:
    if (!at(p, "/uri", &uri, PICOMCP_JSON_TYPE_STRING)) error(e->id, -32602, "Invalid params: uri must be a string");
    else if (is(uri, "test://static-text")) answer(e->id, S(STATIC_TEXT));
    else error(e->id, -32002, "Resource not found");
    break;
  case PICOMCP_METHOD_PROMPTS_LIST: list(e->id, p, PROMPTS); break;
  case PICOMCP_METHOD_PROMPTS_GET: prompts_get(e->id, p); break;
  default: error(e->id, -32601, "Method not found");
  }
}

/* Takes every event; the views in `e` are valid until the next call on the session. */
static void drain_events(void) {
  picomcp_event e;
  int t;
  while (picomcp_session_poll_event(sess, &e) == PICOMCP_STATUS_OK && e.kind != PICOMCP_EVENT_KIND_NONE) {
    switch (e.kind) {
    case PICOMCP_EVENT_KIND_REQUEST: diag(3, "request %.*s", (int)e.method_name.len, e.method_name.ptr); on_request(&e); break;
    case PICOMCP_EVENT_KIND_CANCELLED: /* nothing more is sent for it */
      for (t = 0; t < SLOTS; t++) if (timers[t].used && timers[t].id == e.id) timers[t].used = 0;
      /* the core already finished the request and freed its slot */
      break;
    case PICOMCP_EVENT_KIND_NEGOTIATED: diag(2, "protocol %.*s", (int)e.version_name.len, e.version_name.ptr); break;
    case PICOMCP_EVENT_KIND_PEER_VIOLATION: diag(1, "peer violation: %.*s", (int)e.text.len, e.text.ptr); break;
    case PICOMCP_EVENT_KIND_CLOSED: diag(2, "session closed: %.*s", (int)e.text.len, e.text.ptr); break;
    default: break;
    }
  }
  flush();
}

/* Offers in[*off..len] to the session. Fewer bytes taken: its queues are full (drain,
 * offer again); none: it waits for us (a batch whose sleep still runs), so the rest
 * waits for the timers. A closed session takes nothing more: the rest is dropped. */
static void offer(const uint8_t *in, size_t *off, size_t len) {
  size_t taken;
  uint32_t phase = 0;
  while (*off < len) {
    picomcp_session_handle_bytes(sess, now_ms(), in + *off, len - *off, &taken);
    drain_events();
    *off += taken;
    if (!taken) {
      picomcp_session_phase(sess, &phase);
      if (phase == PICOMCP_PHASE_CLOSED) *off = len;
      return;
    }
  }
}

static uint64_t next_timer(void) {
  uint64_t due = PICOMCP_NO_DEADLINE;
  int t;
  for (t = 0; t < SLOTS; t++) if (timers[t].used && timers[t].due < due) due = timers[t].due;
  return due;
}

int main(int argc, char **argv) {
  static uint8_t in[65536];
  picomcp_config cfg;
  size_t size = 0, align = 0, max_line = 1u << 20, in_off = 0, in_len = 0;
  void *mem;
  int eof = 0, i, l;
  picomcp_status st;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-line") && i + 1 < argc) max_line = (size_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--log-level") && i + 1 < argc) {
      for (l = 0, ++i; l < 4 && strcmp(argv[i], LEVELS[l]); l++) {}
      if (l == 4) { fprintf(stderr, "picomcp-demo-c: unknown log level %s\n", argv[i]); return 2; }
      diag_level = l;
    } else { fprintf(stderr, "usage: picomcp-demo-c [--max-line BYTES] [--log-level error|warn|info|debug]\n"); return 2; }
  }
  if (max_line < 256) { fprintf(stderr, "picomcp-demo-c: --max-line must be at least 256\n"); return 2; }
  signal(SIGPIPE, SIG_IGN);
  picomcp_config_init(&cfg, PICOMCP_ROLE_SERVER);
  cfg.name = S("picomcp-demo-c");
  cfg.version = S(PICOMCP_LIB_VERSION_STRING);
  cfg.capabilities = S("{\"tools\":{\"listChanged\":true},\"resources\":{\"listChanged\":true},\"prompts\":{\"listChanged\":true},\"logging\":{}}");
  cfg.instructions = S("picomcp demo server (C). Tools: echo, add, sleep, test_simple_text, test_error_handling.");
  cfg.versions = PICOMCP_VERSIONS_ALL;
  cfg.max_line = max_line;
  cfg.inbound_slots = SLOTS;
  /* No-malloc placement: memory of this size and alignment from anywhere (a static array
   * on firmware); malloc's is aligned enough. */
  if ((st = picomcp_session_storage_size(&cfg, &size, &align)) != PICOMCP_STATUS_OK) { status_diag("config", st); return 1; }
  if (!(mem = malloc(size))) { diag(0, "out of memory"); return 1; }
  if ((st = picomcp_session_init(mem, size, &cfg, now_ms(), &sess)) != PICOMCP_STATUS_OK) { status_diag("session", st); return 1; }
  diag(2, "picomcp-demo-c %s on stdio, max line %zu bytes, session %zu bytes", PICOMCP_LIB_VERSION_STRING, max_line, size);
  /* After EOF, running sleeps still answer. in[in_off..in_len]: read, not yet taken. */
  while (!eof || in_off < in_len || next_timer() != PICOMCP_NO_DEADLINE) {
    uint64_t now, deadline = PICOMCP_NO_DEADLINE, due;
    struct pollfd pfd;
    offer(in, &in_off, in_len);
    now = now_ms();
    due = next_timer();
    picomcp_session_poll_timeout(sess, &deadline);
    if (due < deadline) deadline = due;
    /* Read only when the session took everything read so far. */
    pfd.fd = eof || in_off < in_len ? -1 : STDIN_FILENO; pfd.events = POLLIN; pfd.revents = 0;
    if (poll(&pfd, 1, deadline == PICOMCP_NO_DEADLINE ? -1 : deadline <= now ? 0 : (int)(deadline - now)) < 0 && errno != EINTR) {
      diag(0, "poll: %s", strerror(errno)); return 1;
    }
    if (pfd.revents) {
      ssize_t n = read(STDIN_FILENO, in, sizeof in);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) { eof = 1; picomcp_session_handle_eof(sess, now_ms()); }
      else { in_off = 0; in_len = (size_t)n; offer(in, &in_off, in_len); }
    }
    if (deadline <= (now = now_ms())) { /* a request of ours or a sleep is due */
      picomcp_session_handle_timeout(sess, now);
      run_timers(now);
      drain_events();
    }
  }
  diag(2, "end of input; exiting");
  picomcp_session_deinit(sess);
  free(mem);
  return 0;
}
