/* Runs the cross-language vectors (the .jsonl files in tests/vectors, format in that folder's
 * README) through the C API, as core/tests/vectors.rs does for Rust. Steps and expected
 * values are read with the library's JSON readers; events are rendered as JSON with its
 * writer and compared with a subset match.
 *
 * usage: test_vectors FILE.jsonl... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picomcp.h"

#define S(lit) picomcp_str_from_cstr(lit)
#define LINE 8192
#define MAX_SENT 64

static uint64_t mem[(256 * 1024) / 8];
static char sent[MAX_SENT][2 * LINE];
static int nsent;
static char why[1024];

static picomcp_str view(const char *p, size_t n) { picomcp_str s; s.ptr = p; s.len = n; return s; }
static int has(picomcp_str obj, const char *key, picomcp_str *v) { return picomcp_json_get(obj, S(key), v) == PICOMCP_STATUS_OK; }
static uint32_t kind(picomcp_str v) { uint32_t t = 0; return picomcp_json_kind(v, &t) ? 0 : t; }

static long str(picomcp_str v, char *buf, size_t cap) {
  size_t n = 0;
  return picomcp_json_string(v, buf, cap, &n) ? -1 : (long)n;
}

/* Subset match: every member `exp` lists matches; arrays element by element; "<any>"
 * matches anything present and not null; numbers compare by value. */
static int match(picomcp_str exp, picomcp_str act) {
  static char a[LINE], b[LINE];
  uint32_t te = kind(exp), ta = kind(act);
  size_t i, n = 0, m = 0;
  double x, y;
  picomcp_str k, v, w;
  long la, lb;
  if (te == PICOMCP_JSON_TYPE_STRING && str(exp, a, sizeof a) == 5 && !strcmp(a, "<any>")) return ta && ta != PICOMCP_JSON_TYPE_NULL;
  if (te != ta) return 0;
  switch (te) {
  case PICOMCP_JSON_TYPE_OBJECT:
    for (i = 0; picomcp_json_member_at(exp, i, &k, &v) == PICOMCP_STATUS_OK; i++) {
      char key[256];
      if (str(k, key, sizeof key) < 0 || picomcp_json_get(act, view(key, strlen(key)), &w) || !match(v, w)) return 0;
    }
    return 1;
  case PICOMCP_JSON_TYPE_ARRAY:
    if (picomcp_json_len(exp, &n) || picomcp_json_len(act, &m) || n != m) return 0;
    for (i = 0; i < n; i++) {
      if (picomcp_json_at(exp, i, &v) || picomcp_json_at(act, i, &w) || !match(v, w)) return 0;
    }
    return 1;
  case PICOMCP_JSON_TYPE_STRING:
    la = str(exp, a, sizeof a);
    lb = str(act, b, sizeof b);
    return la >= 0 && la == lb && !memcmp(a, b, (size_t)la);
  case PICOMCP_JSON_TYPE_NUMBER:
    return !picomcp_json_number(exp, &x) && !picomcp_json_number(act, &y) && x == y;
  default:
    return exp.len == act.len && !memcmp(exp.ptr, act.ptr, exp.len);
  }
}

static const char *violation_name(uint32_t v) {
  static const char *names[] = {"None", "Malformed", "LineTooLong", "UnknownMethod", "NotNegotiated", "NotInitialized",
    "DuplicateInitialize", "DuplicateRequestId", "TooManyRequests", "InvalidParams", "UnknownResponseId",
    "UncorrelatedError", "BatchNotAllowed", "ProgressNotIncreasing", "BadEnvelope", "UnsupportedVersion",
    "UnexpectedMessage", "TooManySubscriptions", "InvalidResult", "NotInVersion"};
  return v < sizeof names / sizeof names[0] ? names[v] : "Other";
}

static const char *close_name(uint32_t r) {
  static const char *names[] = {"None", "PeerClosed", "UnsupportedVersion", "InitializeRejected", "InitializeTimedOut",
    "Local", "PeerClosedDuringProbe", "NoCommonVersion"};
  return r < sizeof names / sizeof names[0] ? names[r] : "Other";
}

/* The Rust SendError variant name of a status (expect_error). */
static const char *error_name(picomcp_status st) {
  switch (st) {
  case PICOMCP_STATUS_WRONG_PHASE: return "WrongPhase";
  case PICOMCP_STATUS_WRONG_DIRECTION: return "WrongDirection";
  case PICOMCP_STATUS_NOT_NEGOTIATED: return "NotNegotiated";
  case PICOMCP_STATUS_NOT_IN_VERSION: return "NotInVersion";
  case PICOMCP_STATUS_RESERVED_METHOD: return "Reserved";
  case PICOMCP_STATUS_TOO_MANY_REQUESTS: return "TooManyRequests";
  case PICOMCP_STATUS_QUEUE_FULL: return "Full";
  case PICOMCP_STATUS_PARAMS_NOT_OBJECT: return "ParamsNotObject";
  case PICOMCP_STATUS_UNKNOWN_REQUEST: return "UnknownRequest";
  case PICOMCP_STATUS_NO_PROGRESS_TOKEN: return "NoProgressToken";
  case PICOMCP_STATUS_PROGRESS_NOT_INCREASING: return "ProgressNotIncreasing";
  case PICOMCP_STATUS_ARENA_FULL: return "ArenaFull";
  case PICOMCP_STATUS_INVALID_CONTENT: return "InvalidContent";
  default: return "?";
  }
}

/* The event as JSON, in the vectors' vocabulary. Returns its length in `buf`. */
static size_t render(const picomcp_event *e, char *buf, size_t cap) {
  static const char *types[] = {"none", "negotiated", "ready", "request", "notification", "response", "error_response",
    "timed_out", "cancelled", "progress", "violation", "closed", "input_required", "subscription_acknowledged",
    "invalid_result", "subscription_ended", "tool_changed", "pins_incomplete"};
  picomcp_writer w;
  size_t n = 0;
  uint32_t k = e->kind;
  const char *json_key = NULL;
  picomcp_writer_init(&w, buf, cap);
  picomcp_writer_begin_object(&w);
  picomcp_writer_key(&w, S("type"));
  picomcp_writer_string(&w, S(k < sizeof types / sizeof types[0] ? types[k] : "other"));
  switch (k) {
  case PICOMCP_EVENT_KIND_NEGOTIATED: case PICOMCP_EVENT_KIND_READY:
    picomcp_writer_key(&w, S("version")); picomcp_writer_string(&w, e->version_name); break;
  case PICOMCP_EVENT_KIND_REQUEST: case PICOMCP_EVENT_KIND_NOTIFICATION:
    picomcp_writer_key(&w, S("method")); picomcp_writer_string(&w, e->method_name); json_key = "params"; break;
  case PICOMCP_EVENT_KIND_RESPONSE: json_key = "result"; break;
  case PICOMCP_EVENT_KIND_INPUT_REQUIRED: json_key = "input_requests"; break;
  case PICOMCP_EVENT_KIND_SUBSCRIPTION_ACKNOWLEDGED: json_key = "notifications"; break;
  case PICOMCP_EVENT_KIND_ERROR_RESPONSE:
    picomcp_writer_key(&w, S("code")); picomcp_writer_int(&w, e->code);
    picomcp_writer_key(&w, S("message")); picomcp_writer_string(&w, e->text); break;
  case PICOMCP_EVENT_KIND_CANCELLED:
    picomcp_writer_key(&w, S("reason"));
    if (e->text.ptr) picomcp_writer_string(&w, e->text); else picomcp_writer_null(&w);
    break;
  case PICOMCP_EVENT_KIND_PROGRESS:
    picomcp_writer_key(&w, S("progress")); picomcp_writer_double(&w, e->progress);
    picomcp_writer_key(&w, S("total")); picomcp_writer_double(&w, e->total); /* NaN: null */
    break;
  case PICOMCP_EVENT_KIND_PEER_VIOLATION:
    picomcp_writer_key(&w, S("kind")); picomcp_writer_string(&w, S(violation_name(e->violation))); break;
  case PICOMCP_EVENT_KIND_CLOSED:
    picomcp_writer_key(&w, S("reason")); picomcp_writer_string(&w, S(close_name(e->close_reason))); break;
  case PICOMCP_EVENT_KIND_TOOL_CHANGED:
    picomcp_writer_key(&w, S("name")); picomcp_writer_string(&w, e->text); json_key = "digests"; break;
  case PICOMCP_EVENT_KIND_PINS_INCOMPLETE: json_key = "counts"; break;
  default: break;
  }
  if (json_key) {
    picomcp_writer_key(&w, S(json_key));
    if (e->json.ptr) picomcp_writer_raw(&w, e->json); else picomcp_writer_null(&w);
  }
  picomcp_writer_end_object(&w);
  return picomcp_writer_finish(&w, &n) ? 0 : n;
}

static void collect(picomcp_session *s) {
  static char buf[8 * LINE];
  size_t n = 0, i, start;
  while (picomcp_session_poll_transmit(s, (uint8_t *)buf, sizeof buf, &n) == PICOMCP_STATUS_OK && n > 0) {
    for (start = 0, i = 0; i < n; i++) {
      if (buf[i] != '\n') continue;
      if (nsent < MAX_SENT && i - start < sizeof sent[0]) {
        memcpy(sent[nsent], buf + start, i - start);
        sent[nsent][i - start] = 0;
        nsent++;
      }
      start = i + 1;
    }
  }
}

static picomcp_session *make_session(picomcp_str spec) {
  static char name[256], version[256], instr[1024], text[64], key[256];
  picomcp_config cfg;
  picomcp_session *s = NULL;
  picomcp_str v, e;
  int64_t t;
  size_t i;
  picomcp_config_init(&cfg, has(spec, "role", &v) && str(v, text, sizeof text) > 0 && !strcmp(text, "client") ? PICOMCP_ROLE_CLIENT : PICOMCP_ROLE_SERVER);
  cfg.name = S(has(spec, "name", &v) && str(v, name, sizeof name) >= 0 ? name : "vec");
  cfg.version = S(has(spec, "version", &v) && str(v, version, sizeof version) >= 0 ? version : "0.0.0");
  cfg.capabilities = has(spec, "capabilities", &v) ? v : S("{}");
  if (has(spec, "instructions", &v) && str(v, instr, sizeof instr) >= 0) cfg.instructions = S(instr);
  if (has(spec, "versions", &v)) {
    static const char *all[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"};
    cfg.versions = 0;
    for (i = 0; picomcp_json_at(v, i, &e) == PICOMCP_STATUS_OK; i++) {
      size_t j;
      str(e, text, sizeof text);
      for (j = 0; j < 5; j++) if (!strcmp(text, all[j])) cfg.versions |= 1u << j;
    }
  }
  if (has(spec, "request_timeout_ms", &v) && !picomcp_json_int(v, &t)) cfg.request_timeout_ms = (uint64_t)t;
  if (has(spec, "probe_timeout_ms", &v) && !picomcp_json_int(v, &t)) cfg.probe_timeout_ms = (uint64_t)t;
  if (has(spec, "state_key", &v)) {
    long n = str(v, key, sizeof key);
    if (n > 0) { cfg.state_key = (const uint8_t *)key; cfg.state_key_len = (size_t)n; }
  }
  cfg.max_line = LINE;
  cfg.arena_bytes = 2048;
  cfg.batch_bytes = 2048;
  cfg.inbound_slots = 8;
  cfg.outbound_slots = 8;
  cfg.tx_size = 32768;
  cfg.event_size = 32768;
  if (picomcp_session_init(mem, sizeof mem, &cfg, 0, &s)) return NULL;
  return s;
}

#define FAIL(...) do { snprintf(why, sizeof why, __VA_ARGS__); goto fail; } while (0)

static int run(const char *path) {
  static char text[4 * LINE], rendered[4 * LINE], name[64];
  FILE *f = fopen(path, "rb");
  char *data, *p, *nl;
  long size;
  int step = 0, ok = 0, have_error = 0;
  picomcp_session *s = NULL;
  uint64_t now = 0;
  uint32_t last_request = 0, last_outbound = 0, last_input = 0;
  picomcp_status last_error = PICOMCP_STATUS_OK;
  if (!f) { printf("not ok - %s: cannot open\n", path); return 0; }
  fseek(f, 0, SEEK_END); size = ftell(f); fseek(f, 0, SEEK_SET);
  data = malloc((size_t)size + 1);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) { fclose(f); free(data); return 0; }
  fclose(f);
  data[size] = 0;
  nsent = 0;
  for (p = data; p < data + size; p = nl + 1) {
    picomcp_str line, v, k, x;
    long n;
    picomcp_status st = PICOMCP_STATUS_OK;
    if (!(nl = memchr(p, '\n', (size_t)(data + size - p)))) nl = data + size;
    line = view(p, (size_t)(nl - p));
    if (line.len == 0 || line.ptr[0] == '#') continue;
    step++;
    if (picomcp_json_member_at(line, 0, &k, &v) || str(k, name, sizeof name) < 0) FAIL("step %d: not a step", step);
    if (s) collect(s);
    if (!s) {
      if (strcmp(name, "session") || !(s = make_session(v))) FAIL("step %d: cannot create the session", step);
    } else if (!strcmp(name, "recv") || !strcmp(name, "recv_raw")) {
      size_t taken = 0;
      if ((n = str(v, text, sizeof text - 1)) < 0) FAIL("step %d: bad recv", step);
      if (!strcmp(name, "recv")) text[n++] = '\n';
      if (picomcp_session_handle_bytes(s, now, (const uint8_t *)text, (size_t)n, &taken) || taken != (size_t)n) FAIL("step %d: backpressure", step);
    } else if (!strcmp(name, "expect_send")) {
      if (nsent == 0) FAIL("step %d: nothing was sent", step);
      if (!match(v, S(sent[0]))) FAIL("step %d: sent %.600s", step, sent[0]);
      memmove(sent[0], sent[1], (size_t)(nsent - 1) * sizeof sent[0]);
      nsent--;
    } else if (!strcmp(name, "expect_no_send")) {
      if (nsent) FAIL("step %d: sent %.600s", step, sent[0]);
    } else if (!strcmp(name, "expect_event") || !strcmp(name, "expect_no_event")) {
      picomcp_event e;
      size_t len;
      if (picomcp_session_poll_event(s, &e)) FAIL("step %d: poll_event failed", step);
      if (e.kind == PICOMCP_EVENT_KIND_NONE) {
        if (name[7] == 'e') FAIL("step %d: no event", step);
        continue;
      }
      if (e.kind == PICOMCP_EVENT_KIND_REQUEST) last_request = e.id;
      if (e.kind == PICOMCP_EVENT_KIND_INPUT_REQUIRED) last_input = e.id;
      len = render(&e, rendered, sizeof rendered - 1); /* the views die at the next call */
      rendered[len] = 0;
      if (name[7] == 'n') FAIL("step %d: event %.600s", step, rendered);
      if (!len || !match(v, view(rendered, len))) FAIL("step %d: event %.600s", step, rendered);
    } else if (!strcmp(name, "respond")) {
      st = picomcp_session_respond(s, last_request, v);
      if (st) FAIL("step %d: respond: %d", step, (int)st);
    } else if (!strcmp(name, "respond_input_required")) {
      picomcp_str requests = has(v, "input_requests", &x) ? x : S(NULL), state = S(NULL);
      if (has(v, "request_state", &x)) {
        if (str(x, text, sizeof text) < 0) FAIL("step %d: bad request_state", step);
        state = S(text);
      }
      st = picomcp_session_respond_input_required(s, last_request, requests, state);
      if (st) FAIL("step %d: respond_input_required: %d", step, (int)st);
    } else if (!strcmp(name, "respond_error")) {
      int64_t code = 0;
      if (!has(v, "code", &x) || picomcp_json_int(x, &code)) FAIL("step %d: no code", step);
      if (!has(v, "message", &x) || str(x, text, sizeof text) < 0) strcpy(text, "error");
      st = picomcp_session_respond_error(s, last_request, (int32_t)code, S(text), S(NULL));
      if (st) FAIL("step %d: respond_error: %d", step, (int)st);
    } else if (!strcmp(name, "send_request")) {
      picomcp_request_options o;
      int64_t t = 0;
      bool b = false;
      memset(&o, 0, sizeof o);
      if (has(v, "timeout_ms", &x) && !picomcp_json_int(x, &t)) o.timeout_ms = (uint64_t)t;
      if (has(v, "progress", &x) && !picomcp_json_bool(x, &b)) o.progress = b;
      if (!has(v, "method", &x) || str(x, text, sizeof text) < 0) FAIL("step %d: no method", step);
      st = picomcp_session_send_request(s, now, S(text), has(v, "params", &x) ? x : S(NULL), &o, &last_outbound);
      if (st) { last_error = st; have_error = 1; }
    } else if (!strcmp(name, "send_notification")) {
      if (!has(v, "method", &x) || str(x, text, sizeof text) < 0) FAIL("step %d: no method", step);
      st = picomcp_session_send_notification(s, S(text), has(v, "params", &x) ? x : S(NULL));
      if (st) { last_error = st; have_error = 1; }
    } else if (!strcmp(name, "cancel")) {
      if (!has(v, "reason", &x) || str(x, text, sizeof text) < 0) text[0] = 0;
      st = picomcp_session_cancel(s, last_outbound, has(v, "reason", &x) ? S(text) : S(NULL));
      if (st) FAIL("step %d: cancel: %d", step, (int)st);
    } else if (!strcmp(name, "answer_input")) {
      st = picomcp_session_answer_input(s, now, last_input, v);
      if (st) FAIL("step %d: answer_input: %d", step, (int)st);
    } else if (!strcmp(name, "notify")) {
      uint32_t change = PICOMCP_CHANGE_RESOURCE_UPDATED;
      picomcp_str uri = S(NULL);
      if (kind(v) == PICOMCP_JSON_TYPE_STRING) {
        str(v, text, sizeof text);
        change = !strcmp(text, "tools_list_changed") ? PICOMCP_CHANGE_TOOLS_LIST_CHANGED
               : !strcmp(text, "prompts_list_changed") ? PICOMCP_CHANGE_PROMPTS_LIST_CHANGED
               : PICOMCP_CHANGE_RESOURCES_LIST_CHANGED;
      } else if (has(v, "resource_updated", &x) && str(x, text, sizeof text) >= 0) {
        uri = S(text);
      }
      st = picomcp_session_notify(s, change, uri, NULL);
      if (st) { last_error = st; have_error = 1; }
    } else if (!strcmp(name, "advance_ms")) {
      int64_t t = 0;
      picomcp_json_int(v, &t);
      now += (uint64_t)t;
      picomcp_session_handle_timeout(s, now);
    } else if (!strcmp(name, "eof")) {
      picomcp_session_handle_eof(s, now);
    } else if (!strcmp(name, "expect_error")) {
      if (!have_error) FAIL("step %d: the command succeeded", step);
      str(v, text, sizeof text);
      if (strncmp(error_name(last_error), text, strlen(text))) FAIL("step %d: got %s", step, error_name(last_error));
      have_error = 0;
    } else {
      FAIL("step %d: unknown step %s", step, name);
    }
  }
  ok = 1;
  printf("ok - %s (%d steps)\n", path, step);
fail:
  if (!ok) printf("not ok - %s: %s\n", path, why);
  if (s) picomcp_session_deinit(s);
  free(data);
  return ok;
}

int main(int argc, char **argv) {
  int i, failed = 0;
  if (argc < 2) { fprintf(stderr, "usage: test_vectors FILE.jsonl...\n"); return 2; }
  for (i = 1; i < argc; i++) failed += !run(argv[i]);
  printf("test_vectors: %d files, %d failed\n", argc - 1, failed);
  return failed ? 1 : 0;
}
