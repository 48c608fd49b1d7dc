/* Runs the cross-language vectors (the .jsonl files in tests/vectors, format in that folder's
 * README) through the C API, as core/tests/vectors.rs does for Rust; a session with a "server"
 * member is served through the server layer (picomcp_server_*, picomcp_session_poll_served). Steps and expected
 * values are read with the library's JSON readers; events are rendered as JSON with its
 * writer and compared with a subset match.
 *
 * usage: test_vectors FILE.jsonl... */
#include "vectors_common.h"

#define MAX_SENT 64

static uint64_t mem[(256 * 1024) / 8];
static char sent[MAX_SENT][2 * LINE];
static int nsent;

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

/* ---- served sessions (a "server" member): the catalog (vectors_common.h), events pumped
 * through picomcp_session_poll_served before every expect_* step ---- */
#define MAX_PENDING 32
static char spool[4 * LINE]; /* one answer's strings */
static size_t spool_len;
/* Events the layer passed on, rendered; kind 0: not a call or request. */
static struct { char json[LINE]; uint32_t kind, id; size_t index; } pending[MAX_PENDING];
static int npending;
static uint32_t call_kind, call_id;
static size_t call_index;

/* A string member decoded into the answer pool (absent: the absent view). */
static picomcp_str sstr(picomcp_str obj, const char *key) {
  picomcp_str v, r = {NULL, 0};
  long n;
  if (!has(obj, key, &v) || (n = str(v, spool + spool_len, sizeof spool - spool_len)) < 0) return r;
  r.ptr = spool + spool_len;
  r.len = (size_t)n;
  spool_len += (size_t)n + 1;
  return r;
}

/* The ResultError variant name of an answer's status (expect_error). */
static const char *result_name(picomcp_status st) {
  switch (st) {
  case PICOMCP_STATUS_UNKNOWN_DEFINITION: return "UnknownDefinition";
  case PICOMCP_STATUS_MISSING_STRUCTURED: return "MissingStructured";
  case PICOMCP_STATUS_INVALID_STRUCTURED: return "InvalidStructured";
  case PICOMCP_STATUS_NOT_IN_REVISION: return "NotInRevision";
  case PICOMCP_STATUS_INVALID_BLOCK: return "InvalidContent";
  default: return "Respond";
  }
}

/* A content block from its protocol form; anything but the named kinds is passed as JSON. */
static picomcp_content block(picomcp_str b) {
  picomcp_content c;
  picomcp_str r;
  char type[32] = "";
  picomcp_str t;
  memset(&c, 0, sizeof c);
  if (has(b, "type", &t)) str(t, type, sizeof type);
  if (!strcmp(type, "text")) { c.kind = PICOMCP_CONTENT_KIND_TEXT; c.text = sstr(b, "text"); }
  else if (!strcmp(type, "image") || !strcmp(type, "audio")) {
    c.kind = type[0] == 'i' ? PICOMCP_CONTENT_KIND_IMAGE : PICOMCP_CONTENT_KIND_AUDIO;
    c.data = sstr(b, "data"); c.mime_type = sstr(b, "mimeType");
  } else if (!strcmp(type, "resource_link")) {
    c.kind = PICOMCP_CONTENT_KIND_RESOURCE_LINK;
    c.uri = sstr(b, "uri"); c.name = sstr(b, "name"); c.mime_type = sstr(b, "mimeType"); c.description = sstr(b, "description");
  } else if (!strcmp(type, "resource") && has(b, "resource", &r)) {
    c.kind = PICOMCP_CONTENT_KIND_RESOURCE;
    c.uri = sstr(r, "uri"); c.mime_type = sstr(r, "mimeType"); c.text = sstr(r, "text"); c.data = sstr(r, "blob");
  } else { c.kind = PICOMCP_CONTENT_KIND_JSON; c.json = b; }
  return c;
}

/* Answers the most recent call as the step says. */
static picomcp_status respond_call(picomcp_session *s, const char *step, picomcp_str v) {
  static picomcp_content blocks[PICOMCP_SERVER_MAX_BLOCKS];
  static picomcp_resource_contents items[PICOMCP_SERVER_MAX_BLOCKS];
  static picomcp_prompt_message msgs[PICOMCP_SERVER_MAX_BLOCKS];
  static picomcp_str values[PICOMCP_SERVER_MAX_COMPLETIONS + 8];
  picomcp_str list, e, x;
  size_t i = 0;
  char role[16];
  int64_t n;
  spool_len = 0;
  if (!strcmp(step, "respond_tool") && call_kind == PICOMCP_EVENT_KIND_CALL_TOOL) {
    picomcp_tool_result r;
    memset(&r, 0, sizeof r);
    if (has(v, "content", &list)) {
      for (; i < PICOMCP_SERVER_MAX_BLOCKS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++) blocks[i] = block(e);
      r.content = blocks; r.content_count = i;
    }
    if (has(v, "structured", &x)) r.structured = x;
    r.is_error = flag(v, "is_error", false);
    return picomcp_server_respond_tool(&server, s, call_id, call_index, &r, NULL);
  }
  if (!strcmp(step, "respond_read") && call_kind == PICOMCP_EVENT_KIND_CALL_READ) {
    if (has(v, "contents", &list))
      for (; i < PICOMCP_SERVER_MAX_BLOCKS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++) {
        memset(&items[i], 0, sizeof items[i]);
        items[i].uri = sstr(e, "uri"); items[i].mime_type = sstr(e, "mimeType");
        items[i].text = sstr(e, "text"); items[i].blob = sstr(e, "blob");
        if (!items[i].text.ptr) items[i].text = S("");
      }
    return picomcp_server_respond_read(&server, s, call_id, items, i);
  }
  if (!strcmp(step, "respond_prompt") && call_kind == PICOMCP_EVENT_KIND_CALL_PROMPT) {
    if (has(v, "messages", &list))
      for (; i < PICOMCP_SERVER_MAX_BLOCKS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++) {
        msgs[i].role = has(e, "role", &x) && str(x, role, sizeof role) > 0 && !strcmp(role, "assistant")
          ? PICOMCP_PROMPT_ROLE_ASSISTANT : PICOMCP_PROMPT_ROLE_USER;
        has(e, "content", &x);
        msgs[i].content = block(x);
      }
    return picomcp_server_respond_prompt(&server, s, call_id, call_index, msgs, i);
  }
  if (!strcmp(step, "respond_completion") && call_kind == PICOMCP_EVENT_KIND_CALL_COMPLETE) {
    picomcp_completion c;
    memset(&c, 0, sizeof c);
    if (has(v, "values", &list))
      for (; i < sizeof values / sizeof values[0] && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++) {
        long len = str(e, spool + spool_len, sizeof spool - spool_len);
        values[i].ptr = spool + spool_len; values[i].len = len < 0 ? 0 : (size_t)len;
        spool_len += values[i].len + 1;
      }
    c.values = values; c.value_count = i;
    if (has(v, "total", &x) && !picomcp_json_int(x, &n)) { c.has_total = true; c.total = (size_t)n; }
    c.has_more = flag(v, "hasMore", false);
    return picomcp_server_respond_completion(&server, s, call_id, &c);
  }
  return PICOMCP_STATUS_INVALID_ARGUMENT;
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

/* Renders a call event in the vectors' vocabulary. */
static size_t render_call(const picomcp_event *e, const picomcp_call *c, char *buf, size_t cap) {
  static const char *targets[] = {"none", "tool", "resource", "template", "prompt"};
  picomcp_writer w;
  size_t n = 0, i;
  picomcp_writer_init(&w, buf, cap);
  picomcp_writer_begin_object(&w);
  picomcp_writer_key(&w, S("type")); picomcp_writer_string(&w, S("call"));
  picomcp_writer_key(&w, S("call"));
  switch (e->kind) {
  case PICOMCP_EVENT_KIND_CALL_TOOL: case PICOMCP_EVENT_KIND_CALL_PROMPT:
    picomcp_writer_string(&w, S(e->kind == PICOMCP_EVENT_KIND_CALL_TOOL ? "tool" : "prompt"));
    picomcp_writer_key(&w, S(e->kind == PICOMCP_EVENT_KIND_CALL_TOOL ? "tool" : "prompt"));
    picomcp_writer_int(&w, (int64_t)c->index);
    picomcp_writer_key(&w, S("arguments")); picomcp_writer_raw(&w, c->arguments);
    break;
  case PICOMCP_EVENT_KIND_CALL_READ: case PICOMCP_EVENT_KIND_CALL_COMPLETE:
    picomcp_writer_string(&w, S(e->kind == PICOMCP_EVENT_KIND_CALL_READ ? "read" : "complete"));
    picomcp_writer_key(&w, S("target")); picomcp_writer_string(&w, S(targets[c->target < 5 ? c->target : 0]));
    picomcp_writer_key(&w, S("index")); picomcp_writer_int(&w, (int64_t)c->index);
    if (e->kind == PICOMCP_EVENT_KIND_CALL_READ) {
      picomcp_writer_key(&w, S("uri")); picomcp_writer_string(&w, c->uri);
      picomcp_writer_key(&w, S("vars")); picomcp_writer_begin_object(&w);
      for (i = 0; i < c->var_count; i++) { picomcp_writer_key(&w, c->vars[i].name); picomcp_writer_string(&w, c->vars[i].value); }
      picomcp_writer_end_object(&w);
    } else {
      picomcp_writer_key(&w, S("argument")); picomcp_writer_string(&w, c->argument);
      picomcp_writer_key(&w, S("value")); picomcp_writer_string(&w, c->value);
    }
    break;
  default: break;
  }
  picomcp_writer_end_object(&w);
  return picomcp_writer_finish(&w, &n) ? 0 : n;
}

/* Capability flags (PICOMCP_CAP_*) as the object they stand for, as the core renders them
 * (`Caps::json`, member order aside): what expect_client_capabilities compares. */
static size_t render_caps(uint32_t caps, char *buf, size_t cap) {
  static const struct { uint32_t flag; const char *name; bool booleans; uint32_t inner[2]; const char *inner_name[2]; } members[] = {
    {PICOMCP_CAP_ROOTS, "roots", true, {PICOMCP_CAP_ROOTS_LIST_CHANGED, 0}, {"listChanged", NULL}},
    {PICOMCP_CAP_SAMPLING, "sampling", false, {PICOMCP_CAP_SAMPLING_TOOLS, PICOMCP_CAP_SAMPLING_CONTEXT}, {"tools", "context"}},
    {PICOMCP_CAP_ELICITATION, "elicitation", false, {PICOMCP_CAP_ELICITATION_FORM, PICOMCP_CAP_ELICITATION_URL}, {"form", "url"}},
    {PICOMCP_CAP_TASKS, "tasks", false, {PICOMCP_CAP_TASKS_LIST, PICOMCP_CAP_TASKS_CANCEL}, {"list", "cancel"}},
    {PICOMCP_CAP_TOOLS, "tools", true, {PICOMCP_CAP_TOOLS_LIST_CHANGED, 0}, {"listChanged", NULL}},
    {PICOMCP_CAP_RESOURCES, "resources", true, {PICOMCP_CAP_RESOURCES_SUBSCRIBE, PICOMCP_CAP_RESOURCES_LIST_CHANGED}, {"subscribe", "listChanged"}},
    {PICOMCP_CAP_PROMPTS, "prompts", true, {PICOMCP_CAP_PROMPTS_LIST_CHANGED, 0}, {"listChanged", NULL}},
    {PICOMCP_CAP_LOGGING, "logging", false, {0, 0}, {NULL, NULL}},
    {PICOMCP_CAP_COMPLETIONS, "completions", false, {0, 0}, {NULL, NULL}},
  };
  picomcp_writer w;
  size_t i, j, n = 0;
  picomcp_writer_init(&w, buf, cap);
  picomcp_writer_begin_object(&w);
  for (i = 0; i < sizeof members / sizeof members[0]; i++) {
    if (!(caps & members[i].flag)) continue;
    picomcp_writer_key(&w, S(members[i].name));
    picomcp_writer_begin_object(&w);
    for (j = 0; j < 2; j++) {
      if (!members[i].inner[j] || !(caps & members[i].inner[j])) continue;
      picomcp_writer_key(&w, S(members[i].inner_name[j]));
      if (members[i].booleans) picomcp_writer_bool(&w, true);
      else { picomcp_writer_begin_object(&w); picomcp_writer_end_object(&w); }
    }
    picomcp_writer_end_object(&w);
  }
  picomcp_writer_end_object(&w);
  return picomcp_writer_finish(&w, &n) ? 0 : n;
}

/* Served sessions: takes every event through the layer into `pending`. */
static void pump(picomcp_session *s) {
  picomcp_event e;
  picomcp_call c;
  size_t len;
  while (npending < MAX_PENDING && picomcp_session_poll_served(s, &server, &e, &c) == PICOMCP_STATUS_OK &&
         e.kind != PICOMCP_EVENT_KIND_NONE) {
    len = e.kind >= PICOMCP_EVENT_KIND_CALL_TOOL && e.kind <= PICOMCP_EVENT_KIND_CALL_COMPLETE
      ? render_call(&e, &c, pending[npending].json, LINE - 1) : render(&e, pending[npending].json, LINE - 1);
    pending[npending].json[len] = 0;
    pending[npending].kind = e.kind;
    pending[npending].id = e.id;
    pending[npending].index = c.index;
    npending++;
  }
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
  static char name[256], version[256], instr[1024], text[64], key[256], caps[PICOMCP_SERVER_CAPABILITIES_MAX];
  picomcp_config cfg;
  picomcp_session *s = NULL;
  picomcp_str v;
  int64_t t;
  picomcp_config_init(&cfg, has(spec, "role", &v) && str(v, text, sizeof text) > 0 && !strcmp(text, "client") ? PICOMCP_ROLE_CLIENT : PICOMCP_ROLE_SERVER);
  cfg.name = S(has(spec, "name", &v) && str(v, name, sizeof name) >= 0 ? name : "vec");
  cfg.version = S(has(spec, "version", &v) && str(v, version, sizeof version) >= 0 ? version : "0.0.0");
  cfg.capabilities = has(spec, "capabilities", &v) ? v : S("{}");
  served = has(spec, "server", &v);
  if (served) {
    if (!make_server(v, caps, sizeof caps)) return NULL;
    cfg.capabilities = S(caps);
  }
  if (has(spec, "instructions", &v) && str(v, instr, sizeof instr) >= 0) cfg.instructions = S(instr);
  if (has(spec, "versions", &v)) cfg.versions = versions_of(v);
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

static int run(const char *path) {
  static char text[4 * LINE], rendered[4 * LINE], name[64];
  char *data, *p;
  long size = 0;
  int step = 0, ok = 0, have_error = 0;
  picomcp_session *s = NULL;
  uint64_t now = 0;
  uint32_t last_request = 0, last_outbound = 0, last_input = 0;
  picomcp_status last_error = PICOMCP_STATUS_OK;
  const char *last_name = NULL;
  picomcp_str line;
  if (!(data = read_file(path, &size))) { snprintf(why, sizeof why, "cannot read"); return report(path, 0, 0); }
  nsent = 0; npending = 0; call_kind = 0; served = 0;
  for (p = data; next_step(&p, data + size, &line);) {
    picomcp_str v, k, x;
    long n;
    picomcp_status st = PICOMCP_STATUS_OK;
    step++;
    if (picomcp_json_member_at(line, 0, &k, &v) || str(k, name, sizeof name) < 0) FAIL("step %d: not a step", step);
    if (s && served && !strncmp(name, "expect_", 7)) pump(s);
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
    } else if (!strcmp(name, "expect_send_exact")) {
      /* Equal, not a subset match: each a subset of the other. */
      if (nsent == 0) FAIL("step %d: nothing was sent", step);
      if (!match(v, S(sent[0])) || !match(S(sent[0]), v)) FAIL("step %d: sent %.600s", step, sent[0]);
      memmove(sent[0], sent[1], (size_t)(nsent - 1) * sizeof sent[0]);
      nsent--;
    } else if (!strcmp(name, "expect_no_send")) {
      if (nsent) FAIL("step %d: sent %.600s", step, sent[0]);
    } else if (served && !strcmp(name, "expect_event")) {
      if (!npending) FAIL("step %d: no event", step);
      if (pending[0].kind == PICOMCP_EVENT_KIND_REQUEST) last_request = pending[0].id;
      else if (pending[0].kind >= PICOMCP_EVENT_KIND_CALL_TOOL && pending[0].kind <= PICOMCP_EVENT_KIND_CALL_COMPLETE) {
        call_kind = pending[0].kind; call_id = pending[0].id; call_index = pending[0].index;
      }
      if (!match(v, S(pending[0].json))) FAIL("step %d: event %.600s", step, pending[0].json);
      memmove(&pending[0], &pending[1], (size_t)(npending - 1) * sizeof pending[0]);
      npending--;
    } else if (served && !strcmp(name, "expect_no_event")) {
      if (npending) FAIL("step %d: event %.600s", step, pending[0].json);
    } else if (!strcmp(name, "respond_tool") || !strcmp(name, "respond_read") || !strcmp(name, "respond_prompt") ||
               !strcmp(name, "respond_completion")) {
      if (!served || !call_kind) FAIL("step %d: %s without a call", step, name);
      st = respond_call(s, name, v);
      if (st) { last_error = st; have_error = 1; last_name = result_name(st); }
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
    } else if (!strcmp(name, "expect_client_capabilities")) {
      /* What a binding shows a handler: a 2026-07-28 request's own, else the session's. */
      picomcp_request_info info;
      uint32_t caps = 0;
      size_t len;
      if (picomcp_session_request_info(s, last_request, &info)) FAIL("step %d: no open request", step);
      if (info.modern) caps = info.client_capabilities;
      else if (picomcp_session_peer_capabilities(s, &caps)) FAIL("step %d: peer_capabilities failed", step);
      len = render_caps(caps, rendered, sizeof rendered - 1);
      rendered[len] = 0;
      /* Equal: each a subset of the other. */
      if (!len || !match(v, view(rendered, len)) || !match(view(rendered, len), v)) FAIL("step %d: shown %.600s", step, rendered);
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
      picomcp_str uri;
      uint32_t change = change_of(v, text, sizeof text, &uri);
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
      if (strncmp(last_name ? last_name : error_name(last_error), text, strlen(text)))
        FAIL("step %d: got %s", step, last_name ? last_name : error_name(last_error));
      have_error = 0; last_name = NULL;
    } else {
      FAIL("step %d: unknown step %s", step, name);
    }
  }
  ok = 1;
fail:
  report(path, ok, step);
  if (s) picomcp_session_deinit(s);
  if (served) picomcp_server_deinit(&server);
  free(data);
  return ok;
}

int main(int argc, char **argv) { return run_files(argc, argv, "test_vectors", run); }
