/* C tests of the picomcp C API: sessions in static memory (no malloc), the handshake,
 * requests and responses between a C client and a C server, every misuse returning its
 * status, and the JSON readers and writer. Built with -std=c99 -Wall -Wextra -Werror
 * -pedantic; run under ASan+UBSan and valgrind by ffi/tests-c/run.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picomcp.h"

static int failures, checks;
#define CHECK(cond) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define ST(call, want) do { picomcp_status st_ = (call); checks++; if (st_ != (want)) { char d_[128]; failures++; \
  picomcp_status_describe(st_, d_, sizeof d_); fprintf(stderr, "%s:%d: %s returned %d (%s), expected %s\n", __FILE__, __LINE__, #call, (int)st_, d_, #want); } } while (0)
#define OK(call) ST(call, PICOMCP_STATUS_OK)
#define S(lit) picomcp_str_from_cstr(lit)

static const picomcp_str NONE = {NULL, 0};

static int str_is(picomcp_str v, const char *text) {
  return v.ptr != NULL && v.len == strlen(text) && memcmp(v.ptr, text, v.len) == 0;
}

/* ---- no-malloc placement: two sessions in static arrays ---- */
#define LINE 1024
static uint64_t server_mem[96 * 1024 / 8];
static uint64_t client_mem[96 * 1024 / 8];

static void config(picomcp_config *c, uint32_t role) {
  OK(picomcp_config_init(c, role));
  c->name = S(role == PICOMCP_ROLE_SERVER ? "c-server" : "c-client");
  c->version = S("1.0");
  c->capabilities = S(role == PICOMCP_ROLE_SERVER ? "{\"tools\":{\"listChanged\":true},\"logging\":{}}" : "{}");
  c->versions = PICOMCP_VERSIONS_LEGACY;
  c->max_line = LINE;
  c->inbound_slots = 4;
  c->outbound_slots = 4;
  c->request_timeout_ms = 1000;
  c->arena_bytes = 512;
  c->batch_bytes = 0;
}

static picomcp_session *place(uint64_t *mem, size_t cap, uint32_t role) {
  picomcp_config c;
  picomcp_session *s = NULL;
  size_t size = 0, align = 0;
  config(&c, role);
  OK(picomcp_session_storage_size(&c, &size, &align));
  CHECK(align >= 1 && align <= PICOMCP_SESSION_MAX_ALIGN && (align & (align - 1)) == 0);
  CHECK(size <= cap);
  OK(picomcp_session_init(mem, cap, &c, 0, &s));
  CHECK(s == (picomcp_session *)(void *)mem);
  return s;
}

static void feed(picomcp_session *s, uint64_t now, const char *line) {
  size_t taken = 0;
  OK(picomcp_session_handle_bytes(s, now, (const uint8_t *)line, strlen(line), &taken));
  CHECK(taken == strlen(line));
}

/* Moves everything `from` wants to send into `to`. Returns the bytes moved. */
static size_t pump(picomcp_session *from, picomcp_session *to, uint64_t now) {
  static uint8_t buf[4 * LINE];
  size_t n = 0, total = 0, taken = 0;
  for (;;) {
    OK(picomcp_session_poll_transmit(from, buf, sizeof buf, &n));
    if (n == 0) return total;
    OK(picomcp_session_handle_bytes(to, now, buf, n, &taken));
    CHECK(taken == n);
    total += n;
  }
}

/* The next line `s` sends, NUL-terminated in a static buffer ("" when none). */
static const char *next_line(picomcp_session *s) {
  static char buf[4 * LINE];
  picomcp_str p;
  size_t i;
  OK(picomcp_session_pending_transmit(s, &p));
  for (i = 0; i < p.len && p.ptr[i] != '\n'; i++) {}
  if (p.len == 0) { buf[0] = 0; return buf; }
  memcpy(buf, p.ptr, i);
  buf[i] = 0;
  OK(picomcp_session_advance_transmit(s, i + 1));
  return buf;
}

static picomcp_event next_event(picomcp_session *s) {
  picomcp_event e;
  e.kind = PICOMCP_EVENT_KIND_NONE; /* stays NONE if the call fails */
  OK(picomcp_session_poll_event(s, &e));
  return e;
}

/* A respond_with callback: {"echo":<the request's text>} (mode 0) or misuse (mode 1). */
typedef struct { int mode; picomcp_str params; } echo_ctx;
static void write_echo(picomcp_writer *w, void *p) {
  const echo_ctx *c = p;
  picomcp_str text;
  picomcp_json_pointer(c->params, S("/arguments/text"), &text, NULL); /* the event view is still valid */
  picomcp_writer_begin_object(w);
  picomcp_writer_key(w, S("echo"));
  picomcp_writer_raw(w, text);
  if (c->mode == 0) picomcp_writer_end_object(w); /* mode 1 leaves the object open */
}

/* A callback that (wrongly) calls back into the session. */
static picomcp_status reentrant_status;
static void write_reentrant(picomcp_writer *w, void *p) {
  picomcp_event e;
  reentrant_status = picomcp_session_poll_event((picomcp_session *)p, &e);
  picomcp_writer_begin_object(w);
  picomcp_writer_end_object(w);
}

static void test_status_describe(void) {
  char buf[128];
  int code;
  for (code = -100; code <= 0; code++) OK(picomcp_status_describe(code, buf, sizeof buf));
  OK(picomcp_status_describe(PICOMCP_STATUS_QUEUE_FULL, buf, sizeof buf));
  CHECK(strncmp(buf, "PICOMCP_STATUS_QUEUE_FULL: ", 27) == 0);
  ST(picomcp_status_describe(PICOMCP_STATUS_OK, buf, 5), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  CHECK(strcmp(buf, "PICO") == 0);
  ST(picomcp_status_describe(0, NULL, 0), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  ST(picomcp_status_describe(0, NULL, 8), PICOMCP_STATUS_NULL_ARGUMENT);
}

/* What a revision changes: one table, asked by revision bit and feature. */
static void test_features(void) {
  bool yes = true;
  picomcp_str name;
  OK(picomcp_version_has(PICOMCP_VERSION_V2025_03_26, PICOMCP_FEATURE_OUTPUT_SCHEMA, &yes));
  CHECK(!yes);
  OK(picomcp_version_has(PICOMCP_VERSION_V2025_06_18, PICOMCP_FEATURE_OUTPUT_SCHEMA, &yes));
  CHECK(yes);
  OK(picomcp_version_has(PICOMCP_VERSION_V2025_06_18, PICOMCP_FEATURE_ARGUMENT_ERRORS_AS_TOOL_RESULTS, &yes));
  CHECK(!yes);
  OK(picomcp_version_has(PICOMCP_VERSION_V2026_07_28, PICOMCP_FEATURE_ARGUMENT_ERRORS_AS_TOOL_RESULTS, &yes));
  CHECK(yes);
  /* Removed again: batches after 2025-03-26, core tasks after 2025-11-25. */
  OK(picomcp_version_has(PICOMCP_VERSION_V2025_06_18, PICOMCP_FEATURE_BATCHES, &yes));
  CHECK(!yes);
  OK(picomcp_version_has(PICOMCP_VERSION_V2026_07_28, PICOMCP_FEATURE_TASKS, &yes));
  CHECK(!yes);
  OK(picomcp_feature_name(PICOMCP_FEATURE_OUTPUT_SCHEMA, &name));
  CHECK(str_is(name, "output_schema"));
  ST(picomcp_version_has(PICOMCP_VERSIONS_LEGACY, PICOMCP_FEATURE_TASKS, &yes), PICOMCP_STATUS_INVALID_ARGUMENT);
  ST(picomcp_version_has(0, PICOMCP_FEATURE_TASKS, &yes), PICOMCP_STATUS_INVALID_ARGUMENT);
  ST(picomcp_version_has(PICOMCP_VERSION_V2025_11_25, 999, &yes), PICOMCP_STATUS_INVALID_ARGUMENT);
  ST(picomcp_feature_name(999, &name), PICOMCP_STATUS_INVALID_ARGUMENT);
  ST(picomcp_version_has(PICOMCP_VERSION_V2025_11_25, PICOMCP_FEATURE_TASKS, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
}

static void test_config_misuse(void) {
  picomcp_config c, bad;
  picomcp_session *s = (picomcp_session *)1;
  size_t size = 0, align = 0;
  config(&c, PICOMCP_ROLE_SERVER);
  ST(picomcp_config_init(NULL, PICOMCP_ROLE_SERVER), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_config_init(&bad, 0), PICOMCP_STATUS_BAD_ROLE);
  ST(picomcp_session_storage_size(NULL, &size, &align), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_storage_size(&c, NULL, &align), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_storage_size(&c, &size, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  OK(picomcp_session_storage_size(&c, &size, &align));
  ST(picomcp_session_init(NULL, size, &c, 0, &s), PICOMCP_STATUS_NULL_ARGUMENT);
  CHECK(s == NULL);
  ST(picomcp_session_init(server_mem, size, NULL, 0, &s), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_init(server_mem, size, &c, 0, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_init(server_mem, size - 1, &c, 0, &s), PICOMCP_STATUS_MEMORY_TOO_SMALL);
  ST(picomcp_session_init((char *)server_mem + 1, size, &c, 0, &s), PICOMCP_STATUS_MEMORY_MISALIGNED);
  ST(picomcp_session_init_zeroed(NULL, size, &c, 0, &s), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_init_zeroed(server_mem, size, NULL, 0, &s), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_init_zeroed(server_mem, size - 1, &c, 0, &s), PICOMCP_STATUS_MEMORY_TOO_SMALL);
  ST(picomcp_session_init_zeroed((char *)server_mem + 1, size, &c, 0, &s), PICOMCP_STATUS_MEMORY_MISALIGNED);
  ST(picomcp_session_new(NULL, 0, &s), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_new(&c, 0, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  bad = c; bad.role = 99;
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_BAD_ROLE);
  bad = c; bad.capabilities = S("[]");
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_CAPABILITIES_NOT_OBJECT);
  bad.capabilities = S("{\"tools\":");
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_INVALID_JSON);
  bad = c; bad.versions = 0;
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_NO_VERSIONS);
  bad.versions = 1u << 31;
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_INVALID_ARGUMENT);
  bad = c; bad.max_line = 0;
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_BAD_LIMIT);
  bad = c; bad.inbound_slots = 70000;
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_TABLE_TOO_LARGE);
  bad = c; bad.name.ptr = NULL; bad.name.len = 4;
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_NULL_ARGUMENT);
  bad = c; bad.name = S("\xff\xfe");
  ST(picomcp_session_storage_size(&bad, &size, &align), PICOMCP_STATUS_INVALID_UTF8);
  bad = c; bad.max_depth = 300;
  ST(picomcp_session_new(&bad, 0, &s), PICOMCP_STATUS_BAD_LIMIT);
  CHECK(s == NULL);
  bad = c; bad.tx_size = 10;
  ST(picomcp_session_new(&bad, 0, &s), PICOMCP_STATUS_QUEUE_TOO_SMALL);
  { /* Zeroed memory (.bss) for picomcp_session_init_zeroed: no zeroing pass, same session. */
    static uint64_t zeroed[96 * 1024 / 8];
    uint8_t out[512];
    size_t n = 0;
    OK(picomcp_session_storage_size(&c, &size, &align));
    CHECK(size <= sizeof zeroed);
    OK(picomcp_session_init_zeroed(zeroed, sizeof zeroed, &c, 0, &s));
    CHECK(s == (picomcp_session *)(void *)zeroed);
    feed(s, 0, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}\n");
    OK(picomcp_session_poll_transmit(s, out, sizeof out, &n));
    CHECK(n > 20 && memcmp(out, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":", 20) == 0 && out[n - 1] == '\n');
    OK(picomcp_session_deinit(s));
  }
}

/* Every session function with a NULL session, and with NULL outputs on a live one. */
static void test_null_pointers(picomcp_session *s) {
  picomcp_event e;
  picomcp_str v;
  picomcp_stats stats;
  picomcp_request_info info;
  size_t n;
  uint64_t d;
  uint32_t u, id;
  bool b;
  ST(picomcp_session_handle_bytes(NULL, 0, (const uint8_t *)"x", 1, &n), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_handle_eof(NULL, 0), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_handle_timeout(NULL, 0), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_poll_transmit(NULL, (uint8_t *)&d, 8, &n), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_pending_transmit(NULL, &v), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_advance_transmit(NULL, 0), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_poll_event(NULL, &e), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_has_events(NULL, &b), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_poll_timeout(NULL, &d), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_respond(NULL, 0, S("{}")), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_respond_error(NULL, 0, -1, S("x"), NONE), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_send_request(NULL, 0, S("ping"), NONE, NULL, &id), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_send_notification(NULL, S("notifications/tools/list_changed"), NONE), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_cancel(NULL, 0, NONE), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_progress(NULL, 0, 1, NAN, NONE), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_log(NULL, 0, NONE, S("1"), &b), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_log_text(NULL, 0, NONE, S("x"), &b), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_log_for(NULL, 0, 0, NONE, S("1"), &b), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_log_for_text(NULL, 0, 0, NONE, S("x"), &b), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_notify(NULL, PICOMCP_CHANGE_TOOLS_LIST_CHANGED, NONE, &n), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_respond_missing_capability(NULL, 0, S("{}")), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_respond_input_required(NULL, 0, NONE, S("x")), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_request_info(NULL, 0, &info), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_answer_input(NULL, 0, 0, S("{}")), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_listen(NULL, S("{}"), &id), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_close(NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_is_open(NULL, 0, &b), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_role(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_phase(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_version(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_era(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_log_level(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_capabilities(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_peer_capabilities(NULL, &u), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_stats(NULL, &stats), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_deinit(NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  OK(picomcp_session_free(NULL)); /* like free(NULL) */
  /* NULL outputs and inputs on a live session. */
  ST(picomcp_session_handle_bytes(s, 0, NULL, 3, &n), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_handle_bytes(s, 0, (const uint8_t *)"x", 1, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  OK(picomcp_session_handle_bytes(s, 0, NULL, 0, &n));
  CHECK(n == 0);
  ST(picomcp_session_poll_transmit(s, NULL, 8, &n), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_poll_transmit(s, (uint8_t *)&d, 8, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_poll_event(s, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_poll_timeout(s, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_stats(s, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_send_request(s, 0, S("ping"), NONE, NULL, NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  v.ptr = NULL; v.len = 2;
  ST(picomcp_session_respond(s, 0, v), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_respond_error(s, 0, -1, v, NONE), PICOMCP_STATUS_NULL_ARGUMENT);
}

static void test_server_and_client(void) {
  picomcp_session *srv = place(server_mem, sizeof server_mem, PICOMCP_ROLE_SERVER);
  picomcp_session *cli = place(client_mem, sizeof client_mem, PICOMCP_ROLE_CLIENT);
  picomcp_event e;
  picomcp_str v;
  picomcp_request_options opts;
  uint32_t u = 0, id = 0, req, id2 = 0;
  uint64_t deadline = 0;
  uint8_t small[8];
  size_t n = 0;
  char text[64];
  bool b = false;
  test_null_pointers(srv);

  /* Handshake: client -> initialize -> server -> result -> client -> initialized. */
  CHECK(pump(cli, srv, 0) > 0);
  /* The reply does not fit 8 bytes: the size needed is reported and nothing is lost. */
  ST(picomcp_session_poll_transmit(srv, small, sizeof small, &n), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  CHECK(n > sizeof small);
  CHECK(pump(srv, cli, 0) == n);
  CHECK(pump(cli, srv, 0) > 0);
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_NEGOTIATED && e.version == PICOMCP_VERSION_V2025_11_25);
  CHECK(str_is(e.version_name, "2025-11-25"));
  OK(picomcp_json_get(e.json, S("serverInfo"), &v));
  OK(picomcp_json_get(v, S("name"), &v));
  OK(picomcp_json_string(v, text, sizeof text, &n));
  CHECK(strcmp(text, "c-server") == 0);
  CHECK(next_event(cli).kind == PICOMCP_EVENT_KIND_READY);
  CHECK(next_event(cli).kind == PICOMCP_EVENT_KIND_NONE);
  CHECK(next_event(srv).kind == PICOMCP_EVENT_KIND_NEGOTIATED);
  CHECK(next_event(srv).kind == PICOMCP_EVENT_KIND_READY);
  OK(picomcp_session_phase(srv, &u));
  CHECK(u == PICOMCP_PHASE_OPERATING);
  OK(picomcp_session_peer_capabilities(cli, &u));
  CHECK(u == (PICOMCP_CAP_TOOLS | PICOMCP_CAP_TOOLS_LIST_CHANGED | PICOMCP_CAP_LOGGING));

  /* A request with progress; the answer is an error with an escaped message. */
  memset(&opts, 0, sizeof opts);
  opts.progress = true;
  OK(picomcp_session_send_request(cli, 10, S("tools/call"), S("{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}"), &opts, &id));
  ST(picomcp_session_send_request(cli, 10, S("no/such/method"), NONE, NULL, &u), PICOMCP_STATUS_UNKNOWN_METHOD);
  ST(picomcp_session_send_request(cli, 10, S("tools/call"), S("[1]"), NULL, &u), PICOMCP_STATUS_PARAMS_NOT_OBJECT);
  ST(picomcp_session_send_request(cli, 10, S("tools/call"), S("{"), NULL, &u), PICOMCP_STATUS_INVALID_JSON);
  ST(picomcp_session_send_request(cli, 10, S("roots/list"), NONE, NULL, &u), PICOMCP_STATUS_WRONG_DIRECTION);
  pump(cli, srv, 10);
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_REQUEST && e.method == PICOMCP_METHOD_TOOLS_CALL);
  CHECK(str_is(e.method_name, "tools/call"));
  req = e.id;
  OK(picomcp_json_get(e.json, S("arguments"), &v)); /* views are valid until the next call */
  OK(picomcp_json_get(v, S("text"), &v));
  b = false;
  OK(picomcp_json_string_eq(v, S("hi"), &b));
  CHECK(b);
  {
    echo_ctx c;
    c.params = e.json;
    c.mode = 1;
    ST(picomcp_session_respond_with(srv, req, write_echo, &c), PICOMCP_STATUS_WRITER_STATE);
    ST(picomcp_session_respond_with(srv, req, NULL, &c), PICOMCP_STATUS_NULL_ARGUMENT);
    reentrant_status = PICOMCP_STATUS_OK;
    ST(picomcp_session_respond_with(srv, 0x7fff0009u, write_reentrant, srv), PICOMCP_STATUS_UNKNOWN_REQUEST);
    CHECK(reentrant_status == PICOMCP_STATUS_OK); /* a stale handle: the callback is not called */
    CHECK(strcmp(next_line(srv), "") == 0); /* nothing half-written was queued */
    OK(picomcp_session_is_open(srv, req, &b));
    CHECK(b); /* still owed */
  }
  OK(picomcp_session_progress(srv, req, 0.5, 1.0, S("half way")));
  ST(picomcp_session_progress(srv, req, 0.5, NAN, NONE), PICOMCP_STATUS_PROGRESS_NOT_INCREASING);
  OK(picomcp_session_log_text(srv, PICOMCP_LOG_LEVEL_WARNING, S("test"), S("careful"), &b));
  CHECK(b);
  ST(picomcp_session_log(srv, 99, NONE, S("1"), NULL), PICOMCP_STATUS_INVALID_ARGUMENT);
  ST(picomcp_session_respond_error(srv, req, -32050, S("reserved"), NONE), PICOMCP_STATUS_RESERVED_CODE);
  OK(picomcp_session_respond_error(srv, req, -32000, S("no \"echo\" today"), S("{\"retry\":false}")));
  /* Responding twice, with a made-up handle, or with a bad result. */
  ST(picomcp_session_respond(srv, req, S("{}")), PICOMCP_STATUS_UNKNOWN_REQUEST);
  ST(picomcp_session_respond_error(srv, req, -32000, S("again"), NONE), PICOMCP_STATUS_UNKNOWN_REQUEST);
  ST(picomcp_session_respond(srv, 0x7fff0003u, S("{}")), PICOMCP_STATUS_UNKNOWN_REQUEST);
  ST(picomcp_session_progress(srv, req, 2, NAN, NONE), PICOMCP_STATUS_UNKNOWN_REQUEST);
  pump(srv, cli, 11);
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_PROGRESS && e.id == id && e.progress == 0.5 && e.total == 1.0);
  OK(picomcp_json_get(e.json, S("message"), &v));
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_NOTIFICATION && e.method == PICOMCP_METHOD_LOG_MESSAGE);
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_ERROR_RESPONSE && e.id == id && e.code == -32000);
  CHECK(str_is(e.text, "no \"echo\" today")); /* unescaped for you */
  CHECK(str_is(e.json, "{\"retry\":false}"));

  /* A callback must not enter the session. */
  OK(picomcp_session_send_request(cli, 14, S("tools/list"), NONE, NULL, &id));
  pump(cli, srv, 14);
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_REQUEST);
  OK(picomcp_session_respond_with(srv, e.id, write_reentrant, srv));
  CHECK(reentrant_status == PICOMCP_STATUS_REENTRANT);
  pump(srv, cli, 14);
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_RESPONSE && e.id == id && str_is(e.json, "{}"));

  /* respond_with writes straight into the transmit queue. */
  OK(picomcp_session_send_request(cli, 15, S("tools/call"), S("{\"name\":\"echo\",\"arguments\":{\"text\":\"a\\\"b\"}}"), NULL, &id));
  pump(cli, srv, 15);
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_REQUEST);
  {
    echo_ctx c;
    c.params = e.json;
    c.mode = 0;
    OK(picomcp_session_respond_with(srv, e.id, write_echo, &c));
    ST(picomcp_session_respond_with(srv, e.id, write_echo, &c), PICOMCP_STATUS_UNKNOWN_REQUEST);
  }
  pump(srv, cli, 16);
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_RESPONSE && e.id == id && str_is(e.json, "{\"echo\":\"a\\\"b\"}"));

  /* Cancel: the server sees it; answering the cancelled request sends nothing. */
  OK(picomcp_session_send_request(cli, 20, S("tools/list"), NONE, NULL, &id2));
  OK(picomcp_session_cancel(cli, id2, S("changed my mind")));
  ST(picomcp_session_cancel(cli, id2, NONE), PICOMCP_STATUS_UNKNOWN_REQUEST);
  pump(cli, srv, 20);
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_REQUEST);
  req = e.id;
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_CANCELLED && e.id == req && str_is(e.text, "changed my mind"));
  OK(picomcp_session_is_open(srv, req, &b));
  CHECK(!b);
  OK(picomcp_session_respond(srv, req, S("{\"tools\":[]}")));
  CHECK(pump(srv, cli, 21) == 0);

  /* A timeout. */
  opts.progress = false;
  opts.timeout_ms = 100;
  OK(picomcp_session_send_request(cli, 30, S("tools/list"), NONE, &opts, &id2));
  OK(picomcp_session_poll_timeout(cli, &deadline));
  CHECK(deadline == 130);
  OK(picomcp_session_handle_timeout(cli, 129));
  CHECK(next_event(cli).kind == PICOMCP_EVENT_KIND_NONE);
  OK(picomcp_session_handle_timeout(cli, 130));
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_TIMED_OUT && e.id == id2);
  OK(picomcp_session_poll_timeout(cli, &deadline));
  CHECK(deadline == PICOMCP_NO_DEADLINE);
  CHECK(strstr(next_line(cli), "tools/list") != NULL);
  CHECK(strstr(next_line(cli), "notifications/cancelled") != NULL);

  /* Notifications and changes. */
  OK(picomcp_session_send_notification(srv, S("notifications/tools/list_changed"), NONE));
  ST(picomcp_session_send_notification(srv, S("notifications/prompts/list_changed"), NONE), PICOMCP_STATUS_NOT_NEGOTIATED);
  ST(picomcp_session_send_notification(srv, S("notifications/cancelled"), S("{}")), PICOMCP_STATUS_RESERVED_METHOD);
  OK(picomcp_session_notify(srv, PICOMCP_CHANGE_TOOLS_LIST_CHANGED, NONE, &n));
  CHECK(n == 1);
  ST(picomcp_session_notify(srv, 42, NONE, &n), PICOMCP_STATUS_BAD_CHANGE);
  CHECK(strstr(next_line(srv), "list_changed") != NULL);
  ST(picomcp_session_advance_transmit(srv, 1u << 20), PICOMCP_STATUS_INVALID_ARGUMENT);

  /* Peer violations are events; the reply is already queued. */
  feed(srv, 40, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"nope\"}\n");
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_PEER_VIOLATION && e.violation == PICOMCP_VIOLATION_UNKNOWN_METHOD);
  while (next_line(srv)[0]) {}
  CHECK(strcmp(next_line(srv), "") == 0);

  /* Close, EOF and deinit; then the pointers are stale. */
  OK(picomcp_session_close(cli));
  e = next_event(cli);
  CHECK(e.kind == PICOMCP_EVENT_KIND_CLOSED && e.close_reason == PICOMCP_CLOSE_REASON_LOCAL);
  OK(picomcp_session_handle_eof(srv, 50));
  e = next_event(srv);
  CHECK(e.kind == PICOMCP_EVENT_KIND_CLOSED && e.close_reason == PICOMCP_CLOSE_REASON_PEER_CLOSED);
  ST(picomcp_session_free(srv), PICOMCP_STATUS_WRONG_RELEASE); /* not ours to free */
  OK(picomcp_session_deinit(srv));
  OK(picomcp_session_deinit(cli));
  ST(picomcp_session_deinit(srv), PICOMCP_STATUS_INVALID_SESSION);
  ST(picomcp_session_poll_event(cli, &e), PICOMCP_STATUS_INVALID_SESSION);
  ST(picomcp_session_respond(srv, req, S("{}")), PICOMCP_STATUS_INVALID_SESSION);
}

/* Many requests in one write with tiny queues: handle_bytes takes what fits. */
static void test_backpressure(void) {
  static char input[64 * 64];
  picomcp_config c;
  picomcp_session *s = NULL;
  picomcp_event e;
  size_t off = 0, len = 0, taken, n, answered = 0;
  uint8_t out[512];
  int i;
  config(&c, PICOMCP_ROLE_SERVER);
  c.max_line = 256;
  c.tx_size = 1400; /* the least this configuration allows */
  c.event_size = 700;
  OK(picomcp_session_new(&c, 0, &s)); /* the allocating constructor */
  if (!s) return;
  ST(picomcp_session_deinit(s), PICOMCP_STATUS_WRONG_RELEASE);
  feed(s, 0, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}\n");
  OK(picomcp_session_poll_transmit(s, out, sizeof out, &n));
  feed(s, 0, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  while (next_event(s).kind != PICOMCP_EVENT_KIND_NONE) {}
  for (i = 1; i <= 50; i++) len += (size_t)sprintf(input + len, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n", i);
  while (off < len) {
    OK(picomcp_session_handle_bytes(s, 1, (const uint8_t *)input + off, len - off, &taken));
    off += taken;
    for (e = next_event(s); e.kind == PICOMCP_EVENT_KIND_REQUEST; e = next_event(s)) {
      ST(picomcp_session_respond(s, e.id, S("{\"tools\":[]}")), PICOMCP_STATUS_OK);
    }
    do { OK(picomcp_session_poll_transmit(s, out, sizeof out, &n)); answered += n; } while (n > 0);
  }
  CHECK(answered == 50 * strlen("{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"tools\":[]}}\n") - 9);
  OK(picomcp_session_free(s));
}

static void test_json(void) {
  const char *doc = "{\"a\":[1,-2.5e1,\"x\\\"\\u00e9\",true,null,{\"k\":1}],\"n\":9007199254740993,\"s\\u0041\":\"v\"}";
  picomcp_str v, k, arr;
  picomcp_writer w;
  char buf[16], big[256];
  size_t n = 0;
  double d = 0;
  int64_t i = 0;
  uint32_t t = 0;
  bool b = false;
  OK(picomcp_json_validate(S(doc)));
  ST(picomcp_json_validate(S("{\"a\":01}")), PICOMCP_STATUS_INVALID_JSON);
  ST(picomcp_json_validate(S("\"\\ud800\"")), PICOMCP_STATUS_INVALID_JSON);
  OK(picomcp_json_get(S(doc), S("a"), &arr));
  OK(picomcp_json_len(arr, &n));
  CHECK(n == 6);
  OK(picomcp_json_at(arr, 1, &v));
  OK(picomcp_json_number(v, &d));
  CHECK(d == -25.0);
  ST(picomcp_json_int(v, &i), PICOMCP_STATUS_WRONG_TYPE);
  OK(picomcp_json_at(arr, 2, &v));
  OK(picomcp_json_kind(v, &t));
  CHECK(t == PICOMCP_JSON_TYPE_STRING);
  ST(picomcp_json_string(v, buf, 4, &n), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  CHECK(n == 5); /* x " é (2 bytes) + NUL */
  OK(picomcp_json_string(v, buf, sizeof buf, &n));
  CHECK(n == 4 && strcmp(buf, "x\"\xc3\xa9") == 0);
  OK(picomcp_json_at(arr, 3, &v));
  OK(picomcp_json_bool(v, &b));
  CHECK(b);
  ST(picomcp_json_at(arr, 6, &v), PICOMCP_STATUS_NOT_FOUND);
  ST(picomcp_json_get(arr, S("a"), &v), PICOMCP_STATUS_WRONG_TYPE);
  ST(picomcp_json_get(S(doc), S("zz"), &v), PICOMCP_STATUS_NOT_FOUND);
  OK(picomcp_json_get(S(doc), S("n"), &v));
  OK(picomcp_json_int(v, &i));
  CHECK(i == 9007199254740993LL);
  OK(picomcp_json_get(S(doc), S("sA"), &v)); /* keys compare after unescaping */
  OK(picomcp_json_member_at(S(doc), 2, &k, &v));
  OK(picomcp_json_string(k, buf, sizeof buf, &n));
  CHECK(strcmp(buf, "sA") == 0);
  ST(picomcp_json_member_at(S(doc), 3, &k, &v), PICOMCP_STATUS_NOT_FOUND);
  ST(picomcp_json_string(S("12"), buf, sizeof buf, &n), PICOMCP_STATUS_WRONG_TYPE);
  ST(picomcp_json_get(S(doc), S("a"), NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  OK(picomcp_json_pointer(S(doc), S("/a/5/k"), &v, &t)); /* one validation for the whole path */
  CHECK(t == PICOMCP_JSON_TYPE_NUMBER && str_is(v, "1"));
  ST(picomcp_json_pointer(S(doc), S("/a/6"), &v, NULL), PICOMCP_STATUS_NOT_FOUND);
  ST(picomcp_json_pointer(S(doc), S("/n/x"), &v, NULL), PICOMCP_STATUS_WRONG_TYPE);
  ST(picomcp_json_pointer(S(doc), S("n"), &v, NULL), PICOMCP_STATUS_INVALID_ARGUMENT);

  /* The writer: too small, then big enough; misuse is reported, never written quietly. */
  OK(picomcp_writer_init(&w, buf, sizeof buf));
  OK(picomcp_writer_begin_object(&w));
  OK(picomcp_writer_key(&w, S("text")));
  OK(picomcp_writer_string(&w, S("line\nwith \"quotes\"")));
  OK(picomcp_writer_key(&w, S("n")));
  OK(picomcp_writer_double(&w, 0.25));
  OK(picomcp_writer_key(&w, S("raw")));
  OK(picomcp_writer_raw(&w, S("[1, {\"a\": null}]")));
  OK(picomcp_writer_end_object(&w));
  ST(picomcp_writer_finish(&w, &n), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  CHECK(n == strlen("{\"text\":\"line\\nwith \\\"quotes\\\"\",\"n\":0.25,\"raw\":[1, {\"a\": null}]}"));
  OK(picomcp_writer_init(&w, big, sizeof big));
  OK(picomcp_writer_begin_array(&w));
  OK(picomcp_writer_int(&w, -7));
  OK(picomcp_writer_bool(&w, false));
  OK(picomcp_writer_null(&w));
  OK(picomcp_writer_double(&w, INFINITY));
  OK(picomcp_writer_end_array(&w));
  OK(picomcp_writer_finish(&w, &n));
  CHECK(n == 20 && memcmp(big, "[-7,false,null,null]", 20) == 0);
  ST(picomcp_writer_null(&w), PICOMCP_STATUS_WRITER_STATE); /* finished */
  OK(picomcp_writer_init(&w, big, sizeof big));
  OK(picomcp_writer_begin_object(&w));
  ST(picomcp_writer_int(&w, 1), PICOMCP_STATUS_WRITER_STATE); /* a value without a key */
  ST(picomcp_writer_end_object(&w), PICOMCP_STATUS_WRITER_STATE); /* failed calls are sticky */
  ST(picomcp_writer_finish(&w, &n), PICOMCP_STATUS_WRITER_STATE);
  OK(picomcp_writer_init(&w, big, sizeof big));
  ST(picomcp_writer_key(&w, S("k")), PICOMCP_STATUS_WRITER_STATE); /* a key outside an object */
  OK(picomcp_writer_init(&w, big, sizeof big));
  OK(picomcp_writer_begin_array(&w));
  ST(picomcp_writer_finish(&w, &n), PICOMCP_STATUS_WRITER_STATE); /* unbalanced */
  OK(picomcp_writer_init(&w, big, sizeof big));
  ST(picomcp_writer_string(&w, S("\xc3")), PICOMCP_STATUS_INVALID_UTF8);
  ST(picomcp_writer_null(&w), PICOMCP_STATUS_WRITER_STATE); /* sticky */
  ST(picomcp_writer_finish(&w, &n), PICOMCP_STATUS_WRITER_STATE);
  memset(&w, 0, sizeof w);
  ST(picomcp_writer_null(&w), PICOMCP_STATUS_WRITER_STATE); /* never initialised */
  ST(picomcp_writer_null(NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_writer_init(&w, NULL, 4), PICOMCP_STATUS_NULL_ARGUMENT);
}

/* The server layer's misuse paths (the served flow itself runs in test_vectors). */
static void test_server_layer(void) {
  static const picomcp_tool good[] = {{.name = "echo", .input_schema = "{\"type\":\"object\"}"}};
  picomcp_tool bad[] = {{.name = "echo", .input_schema = "{\"type\":\"object\"}"}, {.name = "two", .input_schema = NULL}};
  picomcp_catalog cat;
  picomcp_server srv;
  picomcp_server_slot slots[2];
  picomcp_server_error err;
  picomcp_event e;
  picomcp_call c;
  picomcp_tool_result r;
  picomcp_str v = S("x");
  char caps[PICOMCP_SERVER_CAPABILITIES_MAX];
  size_t n = 0;
  picomcp_session *s = place(server_mem, sizeof server_mem, PICOMCP_ROLE_SERVER);
  memset(&cat, 0, sizeof cat);
  memset(&r, 0, sizeof r);
  cat.tools = bad; cat.tool_count = 2;
  OK(picomcp_server_slots_needed(&cat, &n));
  CHECK(n == 2);
  ST(picomcp_server_init(&srv, &cat, NULL, slots, 1, &err), PICOMCP_STATUS_MEMORY_TOO_SMALL);
  ST(picomcp_server_init(&srv, &cat, NULL, slots, 2, &err), PICOMCP_STATUS_BAD_DEFINITION);
  CHECK(err.kind == PICOMCP_SERVER_ERROR_KIND_MISSING && err.table == PICOMCP_TABLE_TOOLS && err.index == 1);
  CHECK(str_is(err.field, "inputSchema"));
  CHECK(strcmp(err.message, "tool 1: inputSchema: is required (NULL given)") == 0);
  bad[1].name = "echo"; bad[1].input_schema = "{\"type\":\"object\"}";
  ST(picomcp_server_init(&srv, &cat, NULL, slots, 2, &err), PICOMCP_STATUS_BAD_DEFINITION);
  CHECK(err.kind == PICOMCP_SERVER_ERROR_KIND_DUPLICATE && err.index == 1 && str_is(err.field, "name"));
  ST(picomcp_server_capabilities(&srv, caps, sizeof caps, &n), PICOMCP_STATUS_INVALID_SERVER);
  ST(picomcp_session_poll_served(s, &srv, &e, &c), PICOMCP_STATUS_INVALID_SERVER);
  cat.tools = good; cat.tool_count = 1;
  OK(picomcp_server_init(&srv, &cat, NULL, slots, 1, NULL));
  OK(picomcp_server_capabilities(&srv, caps, sizeof caps, &n));
  CHECK(strcmp(caps, "{\"tools\":{\"listChanged\":true},\"logging\":{}}") == 0 && n == strlen(caps));
  ST(picomcp_server_capabilities(&srv, caps, 4, &n), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  ST(picomcp_session_poll_served(s, &srv, NULL, &c), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_argument(NULL, S("text"), &v), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_argument(s, S("text"), NULL), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_session_argument(s, S("text"), &v), PICOMCP_STATUS_NOT_FOUND); /* no current call */
  CHECK(v.ptr == NULL);
  ST(picomcp_server_respond_tool(&srv, s, 12345, 0, &r, &err), PICOMCP_STATUS_UNKNOWN_REQUEST);
  CHECK(err.kind == PICOMCP_SERVER_ERROR_KIND_RESPOND);
  r.content_count = PICOMCP_SERVER_MAX_BLOCKS + 1;
  ST(picomcp_server_respond_tool(&srv, s, 12345, 0, &r, NULL), PICOMCP_STATUS_TOO_MANY_BLOCKS);
  OK(picomcp_server_deinit(&srv));
  ST(picomcp_server_deinit(&srv), PICOMCP_STATUS_INVALID_SERVER);
  OK(picomcp_percent_decode(S("a%2Fb%20c"), caps, sizeof caps, &n));
  CHECK(n == 5 && strcmp(caps, "a/b c") == 0);
  ST(picomcp_percent_decode(S("a%2Fb"), caps, 2, &n), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  CHECK(n == 4);
  ST(picomcp_percent_decode(S("%zz"), caps, sizeof caps, &n), PICOMCP_STATUS_INVALID_ARGUMENT);
  OK(picomcp_session_deinit(s));
}

/* ---- HTTP: a connection and an endpoint in static memory, a session by slot ---- */
static uint64_t conn_mem[16 * 1024 / 8];
static uint64_t ep_mem[64 * 1024 / 8];

/* Writes what the connection's response is, for stream `h`, into `out`; returns the bytes. */
static size_t serve_stream(picomcp_endpoint *ep, picomcp_http_connection *c, uint64_t h, char *out, size_t cap) {
  picomcp_http_response r; size_t at = 0, n = 0;
  for (;;) {
    OK(picomcp_endpoint_poll_response(ep, 5, h, &r));
    if (r.kind == PICOMCP_RESPONSE_KIND_HEAD) OK(picomcp_http_connection_write_head(c, &r.head, (uint8_t *)out + at, cap - at, &n));
    else if (r.kind == PICOMCP_RESPONSE_KIND_BODY) {
      OK(picomcp_http_connection_write_body(c, r.body, r.body_len, (uint8_t *)out + at, cap - at, &n));
      OK(picomcp_endpoint_advance(ep, h, r.body_len));
    } else if (r.kind == PICOMCP_RESPONSE_KIND_END) { OK(picomcp_http_connection_write_end(c, (uint8_t *)out + at, cap - at, &n)); return at + n; }
    else { CHECK(0); return at; }
    at += n;
  }
}

static void test_http(void) {
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                             "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"0\"}}}";
  char wire[1024], out[4096]; uint8_t *rx, ent[PICOMCP_ENDPOINT_ENTROPY_LEN] = {1, 2, 3};
  picomcp_http_connection *c; picomcp_endpoint *ep; picomcp_endpoint_config ec; picomcp_http_request rq;
  picomcp_http_outcome oc; picomcp_http_state hs; picomcp_http_limits lim; picomcp_config cfg; picomcp_session *s;
  size_t size = 0, align = 0, room = 0, n = 0, len; uint64_t deadline = 0;
  int w = snprintf(wire, sizeof wire, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: application/json, text/event-stream\r\n"
                   "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%sGET /other HTTP/1.1\r\nHost: localhost\r\n\r\n", strlen(body), body);
  OK(picomcp_http_limits_init(&lim));
  CHECK(lim.max_headers == 32 && lim.idle_timeout_ms == 60000);
  OK(picomcp_http_connection_storage_size(4096, &size, &align));
  CHECK(size <= sizeof conn_mem && align <= 8);
  ST(picomcp_http_connection_init(conn_mem, 8, &lim, 0, &c), PICOMCP_STATUS_MEMORY_TOO_SMALL);
  CHECK(c == NULL);
  OK(picomcp_http_connection_init(conn_mem, size, &lim, 0, &c));
  OK(picomcp_endpoint_config_init(&ec));
  ec.max_body = LINE; ec.slots = 2; ec.streams = 2;
  OK(picomcp_endpoint_storage_size(&ec, &size, &align));
  CHECK(size <= sizeof ep_mem);
  OK(picomcp_endpoint_init_zeroed(ep_mem, sizeof ep_mem, &ec, &ep)); /* static: all zero */
  /* two pipelined requests arrive in one read */
  OK(picomcp_http_connection_receive_buffer(c, &rx, &room));
  CHECK(w > 0 && room >= (size_t)w);
  memcpy(rx, wire, (size_t)w);
  OK(picomcp_http_connection_commit_received(c, 1, (size_t)w));
  OK(picomcp_http_connection_poll_request(c, 2, &rq));
  CHECK(rq.kind == PICOMCP_HTTP_POLL_REQUEST && rq.method == PICOMCP_HTTP_METHOD_POST && str_is(rq.target, "/mcp"));
  CHECK(rq.header_count == 4 && rq.body_len == strlen(body));
  OK(picomcp_endpoint_handle_request(ep, 3, &rq, ent, &oc));
  CHECK(oc.kind == PICOMCP_OUTCOME_KIND_DELIVER && oc.fresh && oc.has_stream && oc.slot < 2);
  config(&cfg, PICOMCP_ROLE_SERVER);
  OK(picomcp_session_init(server_mem, sizeof server_mem, &cfg, 3, &s));
  OK(picomcp_session_handle_message(s, 3, rq.body, rq.body_len));
  OK(picomcp_endpoint_collect(ep, 4, oc.slot, s));
  len = serve_stream(ep, c, oc.stream, out, sizeof out - 1);
  out[len] = 0;
  CHECK(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
  CHECK(strstr(out, "Mcp-Session-Id: ") != NULL && strstr(out, "\"protocolVersion\":\"2025-06-18\"") != NULL);
  OK(picomcp_http_connection_finish_request(c, 5));
  /* the pipelined GET of another path: answered at once, 404 */
  OK(picomcp_http_connection_poll_request(c, 6, &rq));
  CHECK(rq.kind == PICOMCP_HTTP_POLL_REQUEST && rq.method == PICOMCP_HTTP_METHOD_GET && rq.body_len == 0);
  OK(picomcp_endpoint_handle_request(ep, 6, &rq, ent, &oc));
  CHECK(oc.kind == PICOMCP_OUTCOME_KIND_RESPOND && oc.head.status == 404);
  ST(picomcp_http_connection_write_head(c, &oc.head, (uint8_t *)out, 4, &n), PICOMCP_STATUS_BUFFER_TOO_SMALL);
  CHECK(n > 4);
  OK(picomcp_http_connection_write_head(c, &oc.head, (uint8_t *)out, sizeof out, &n));
  CHECK(strncmp(out, "HTTP/1.1 404 Not Found\r\n", 24) == 0);
  OK(picomcp_http_connection_finish_request(c, 7));
  OK(picomcp_http_connection_state(c, &hs));
  CHECK(!hs.closed && hs.buffered == 0);
  OK(picomcp_http_connection_poll_timeout(c, &deadline));
  CHECK(deadline == 7 + 60000);
  OK(picomcp_endpoint_poll_timeout(ep, &deadline));
  CHECK(deadline != PICOMCP_NO_DEADLINE);
  /* garbage: an error the codec answers, then the connection is over */
  OK(picomcp_http_connection_handle_bytes(c, 8, (const uint8_t *)"BAD\r\n\r\n", 7, &n));
  CHECK(n == 7);
  OK(picomcp_http_connection_poll_request(c, 8, &rq));
  CHECK(rq.kind == PICOMCP_HTTP_POLL_ERROR && rq.error_status == 400);
  OK(picomcp_http_write_error_response(rq.error_status, true, (uint8_t *)out, sizeof out, &n));
  CHECK(n > 0 && strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
  OK(picomcp_http_write_chunk((const uint8_t *)"abc", 3, (uint8_t *)out, sizeof out, &n));
  CHECK(n == 8 && memcmp(out, "3\r\nabc\r\n", 8) == 0);
  /* misuse */
  ST(picomcp_http_connection_poll_request(NULL, 0, &rq), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_endpoint_handle_request(ep, 0, NULL, ent, &oc), PICOMCP_STATUS_NULL_ARGUMENT);
  ST(picomcp_endpoint_collect(ep, 0, 7, s), PICOMCP_STATUS_INVALID_ARGUMENT);
  ST(picomcp_endpoint_poll_timeout((picomcp_endpoint *)conn_mem, &deadline), PICOMCP_STATUS_INVALID_SESSION);
  OK(picomcp_session_deinit(s));
  OK(picomcp_endpoint_deinit(ep));
  ST(picomcp_endpoint_deinit(ep), PICOMCP_STATUS_INVALID_SESSION);
  OK(picomcp_http_connection_deinit(c));
  ST(picomcp_http_connection_state(c, &hs), PICOMCP_STATUS_INVALID_SESSION);
}

/* A verifier: the token is a key into two claim sets (a real one checks a signature). */
static bool verify_token(void *user, const uint8_t *token, size_t len, picomcp_claims *claims) {
  static const char basic[] = "{\"sub\":\"alice\",\"client_id\":\"c1\",\"aud\":\"http://localhost/mcp\","
                              "\"exp\":4000000000,\"scope\":\"mcp\"}";
  (*(int *)user)++;
  if (len == 5 && memcmp(token, "basic", 5) == 0)
    return picomcp_claims_report_json(claims, (const uint8_t *)basic, strlen(basic)) == PICOMCP_STATUS_OK;
  if (len == 5 && memcmp(token, "other", 5) == 0) {
    picomcp_claims_set(claims, PICOMCP_CLAIM_SUBJECT, picomcp_str_from_cstr("bob"), 0);
    picomcp_claims_set(claims, PICOMCP_CLAIM_AUDIENCE, picomcp_str_from_cstr("http://elsewhere/mcp"), 0);
    picomcp_claims_set(claims, PICOMCP_CLAIM_EXPIRES_AT, picomcp_str_from_cstr(NULL), 4000000000u);
    return true;
  }
  return false;
}

static bool head_has(const picomcp_http_head *h, const char *name, const char *value) {
  size_t i;
  for (i = 0; i < h->header_count; i++)
    if (str_is(h->headers[i].name, name) && h->headers[i].value_len == strlen(value) &&
        memcmp(h->headers[i].value, value, strlen(value)) == 0) return true;
  return false;
}

static void test_http_auth(void) {
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
  picomcp_str servers[1], scopes[2];
  picomcp_auth_config ac; picomcp_endpoint_config ec; picomcp_endpoint *ep; picomcp_http_outcome oc;
  picomcp_http_header hd[4]; picomcp_http_request rq; picomcp_principal p; bool found = true;
  uint8_t ent[PICOMCP_ENDPOINT_ENTROPY_LEN] = {4, 5, 6}; size_t size = 0, align = 0; int calls = 0;
  servers[0] = picomcp_str_from_cstr("http://localhost:9000");
  scopes[0] = picomcp_str_from_cstr("mcp"); scopes[1] = picomcp_str_from_cstr("admin");
  OK(picomcp_auth_config_init(&ac));
  CHECK(ac.leeway_s == 60 && ac.require_expiry);
  ac.resource = picomcp_str_from_cstr("http://localhost/mcp");
  ac.authorization_servers = servers; ac.authorization_server_count = 1;
  ac.scopes = scopes; ac.scope_count = 2; ac.required = picomcp_str_from_cstr("mcp");
  OK(picomcp_endpoint_config_init(&ec));
  CHECK(ec.auth == NULL);
  ec.max_body = LINE; ec.slots = 2; ec.streams = 2; ec.auth = &ac;
  OK(picomcp_endpoint_storage_size(&ec, &size, &align));
  CHECK(size <= sizeof ep_mem);
  memset(ep_mem, 0, sizeof ep_mem);
  OK(picomcp_endpoint_init(ep_mem, sizeof ep_mem, &ec, &ep));
  hd[0].name = picomcp_str_from_cstr("Host"); hd[0].value = (const uint8_t *)"localhost"; hd[0].value_len = 9;
  hd[1].name = picomcp_str_from_cstr("Accept"); hd[1].value = (const uint8_t *)"application/json, text/event-stream"; hd[1].value_len = 35;
  hd[2].name = picomcp_str_from_cstr("Content-Type"); hd[2].value = (const uint8_t *)"application/json"; hd[2].value_len = 16;
  hd[3].name = picomcp_str_from_cstr("Authorization");
  memset(&rq, 0, sizeof rq);
  rq.kind = PICOMCP_HTTP_POLL_REQUEST; rq.method = PICOMCP_HTTP_METHOD_POST; rq.target = picomcp_str_from_cstr("/mcp");
  rq.headers = hd; rq.header_count = 3; rq.body = (const uint8_t *)body; rq.body_len = strlen(body);
  /* no token: 401 with the challenge; the verifier is not called */
  OK(picomcp_endpoint_handle_request_auth(ep, 1, &rq, ent, 1800000000u, verify_token, &calls, &oc));
  CHECK(oc.kind == PICOMCP_OUTCOME_KIND_RESPOND && oc.head.status == 401 && calls == 0);
  CHECK(head_has(&oc.head, "WWW-Authenticate",
                 "Bearer resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""));
  /* a token for another resource, a rejected one: 401 invalid_token */
  rq.header_count = 4;
  hd[3].value = (const uint8_t *)"Bearer other"; hd[3].value_len = 12;
  OK(picomcp_endpoint_handle_request_auth(ep, 2, &rq, ent, 1800000000u, verify_token, &calls, &oc));
  CHECK(oc.head.status == 401 && calls == 1);
  hd[3].value = (const uint8_t *)"Bearer forged"; hd[3].value_len = 13;
  OK(picomcp_endpoint_handle_request_auth(ep, 3, &rq, ent, 1800000000u, verify_token, &calls, &oc));
  CHECK(oc.head.status == 401 && calls == 2);
  OK(picomcp_endpoint_principal(ep, &p, &found));
  CHECK(!found);
  /* a valid one: delivered, with its principal */
  hd[3].value = (const uint8_t *)"Bearer basic"; hd[3].value_len = 12;
  OK(picomcp_endpoint_handle_request_auth(ep, 4, &rq, ent, 1800000000u, verify_token, &calls, &oc));
  CHECK(oc.kind != PICOMCP_OUTCOME_KIND_RESPOND || oc.head.status != 401);
  OK(picomcp_endpoint_principal(ep, &p, &found));
  CHECK(found && str_is(p.subject, "alice") && str_is(p.client_id, "c1") && p.granted == 1u);
  CHECK(p.has_expiry && p.expires_at == 4000000000u);
  /* the plain function under auth has no verifier: 401 */
  OK(picomcp_endpoint_handle_request(ep, 5, &rq, ent, &oc));
  CHECK(oc.head.status == 401);
  OK(picomcp_endpoint_deinit(ep));
}

static bool has_text(const uint8_t *p, size_t len, const char *text) {
  size_t i, n = strlen(text);
  for (i = 0; i + n <= len; i++) if (memcmp(p + i, text, n) == 0) return true;
  return false;
}

/* Scopes per definition: with the server layer given to the endpoint, a call of a tool whose `scopes` the
 * token lacks is answered 403 insufficient_scope (step-up) before any session; other tools pass. */
static void test_http_scopes(void) {
  static const picomcp_tool tools[] = {{.name = "open", .input_schema = "{\"type\":\"object\"}"},
                                       {.name = "admin_only", .input_schema = "{\"type\":\"object\"}", .scopes = "admin"}};
  static const char call_admin[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"admin_only\"}}";
  static const char call_open[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"open\"}}";
  picomcp_catalog cat = {tools, 2, NULL, 0, NULL, 0, NULL, 0};
  picomcp_server srv; picomcp_server_slot slots[2]; picomcp_str servers[1], scopes[2];
  picomcp_auth_config ac; picomcp_endpoint_config ec; picomcp_endpoint *ep; picomcp_http_outcome oc;
  picomcp_http_header hd[4]; picomcp_http_request rq; uint8_t ent[PICOMCP_ENDPOINT_ENTROPY_LEN] = {7};
  int calls = 0; size_t i; bool challenged = false;
  OK(picomcp_server_init(&srv, &cat, NULL, slots, 2, NULL));
  servers[0] = picomcp_str_from_cstr("http://localhost:9000");
  scopes[0] = picomcp_str_from_cstr("mcp"); scopes[1] = picomcp_str_from_cstr("admin");
  OK(picomcp_auth_config_init(&ac));
  ac.resource = picomcp_str_from_cstr("http://localhost/mcp");
  ac.authorization_servers = servers; ac.authorization_server_count = 1;
  ac.scopes = scopes; ac.scope_count = 2; ac.required = picomcp_str_from_cstr("mcp");
  OK(picomcp_endpoint_config_init(&ec));
  CHECK(ec.server == NULL);
  ec.max_body = LINE; ec.slots = 2; ec.streams = 2; ec.auth = &ac; ec.server = &srv;
  memset(ep_mem, 0, sizeof ep_mem);
  OK(picomcp_endpoint_init(ep_mem, sizeof ep_mem, &ec, &ep));
  hd[0].name = picomcp_str_from_cstr("Host"); hd[0].value = (const uint8_t *)"localhost"; hd[0].value_len = 9;
  hd[1].name = picomcp_str_from_cstr("Accept"); hd[1].value = (const uint8_t *)"application/json, text/event-stream"; hd[1].value_len = 35;
  hd[2].name = picomcp_str_from_cstr("Content-Type"); hd[2].value = (const uint8_t *)"application/json"; hd[2].value_len = 16;
  hd[3].name = picomcp_str_from_cstr("Authorization"); hd[3].value = (const uint8_t *)"Bearer basic"; hd[3].value_len = 12;
  memset(&rq, 0, sizeof rq);
  rq.kind = PICOMCP_HTTP_POLL_REQUEST; rq.method = PICOMCP_HTTP_METHOD_POST; rq.target = picomcp_str_from_cstr("/mcp");
  rq.headers = hd; rq.header_count = 4; rq.body = (const uint8_t *)call_admin; rq.body_len = strlen(call_admin);
  OK(picomcp_endpoint_handle_request_auth(ep, 1, &rq, ent, 1800000000u, verify_token, &calls, &oc));
  CHECK(oc.kind == PICOMCP_OUTCOME_KIND_RESPOND && oc.head.status == 403 && calls == 1);
  for (i = 0; i < oc.head.header_count; i++)
    if (str_is(oc.head.headers[i].name, "WWW-Authenticate"))
      challenged = has_text(oc.head.headers[i].value, oc.head.headers[i].value_len, "insufficient_scope") &&
                   has_text(oc.head.headers[i].value, oc.head.headers[i].value_len, "scope=\"mcp admin\"");
  CHECK(challenged);
  /* a tool without scopes is not refused for them (it goes on to the session rules) */
  rq.body = (const uint8_t *)call_open; rq.body_len = strlen(call_open);
  OK(picomcp_endpoint_handle_request_auth(ep, 2, &rq, ent, 1800000000u, verify_token, &calls, &oc));
  CHECK(oc.head.status != 403 && oc.head.status != 401);
  OK(picomcp_endpoint_deinit(ep));
  OK(picomcp_server_deinit(&srv));
}

int main(void) {
  test_status_describe();
  test_features();
  test_config_misuse();
  test_server_and_client();
  test_backpressure();
  test_json();
  test_server_layer();
  test_http();
  test_http_auth();
  test_http_scopes();
  printf("test_api: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
