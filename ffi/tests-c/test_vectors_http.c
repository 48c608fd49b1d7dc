/* Runs the Streamable HTTP vectors (the .jsonl files of tests/vectors/http, format: tests/vectors/README.md,
 * "Streamable HTTP endpoint") through the C ABI, as core/tests/vectors_http.rs does for Rust:
 * picomcp_endpoint_handle_request_auth with the scripted verifier (each token's claims through
 * picomcp_claims_report_json), a pool of sessions served through picomcp_session_poll_served_as
 * with the principal's grant, picomcp_endpoint_collect, then picomcp_endpoint_poll_response /
 * advance until the stream ends or waits. The JSON readers, the subset match and the catalog
 * builder are those of the session runner (vectors_common.h).
 *
 * usage: test_vectors_http FILE.jsonl... */
#include "vectors_common.h"

#define POOL 8
#define BODY (64 * 1024)
#define MAX_VARS 16
#define MAX_STREAMS 8
#define MAX_HEADERS 32

static picomcp_endpoint *ep;
static uint64_t ep_mem[(2 * 1024 * 1024) / 8];
static picomcp_session *pool_s[POOL];
static picomcp_str spec_tokens; /* the auth member's "tokens" object (absent: none) */
static picomcp_str tool_list;   /* the catalog's "tools" (for the names the app answers with) */
static char sess_caps[PICOMCP_SERVER_CAPABILITIES_MAX];
static picomcp_config sess_cfg;
static uint64_t now, start, unix0;
static size_t last_slot = (size_t)-1;
/* The last response as the client saw it. */
static struct { uint16_t status; char headers[MAX_HEADERS][2][512]; size_t nheaders; char body[BODY]; size_t len; int open; uint64_t stream; } last;
static struct { char name[32]; char value[512]; } vars[MAX_VARS];
static size_t nvars;
static struct { char name[32]; uint64_t stream; uint16_t status; char headers[MAX_HEADERS][2][512]; size_t nheaders; } streams[MAX_STREAMS];

static const char *var(const char *name) {
  size_t i;
  for (i = 0; i < nvars; i++) if (!strcmp(vars[i].name, name)) return vars[i].value;
  return NULL;
}

static const char *header_of(const char *name) {
  size_t i, n = strlen(name);
  for (i = 0; i < last.nheaders; i++) {
    const char *h = last.headers[i][0];
    size_t j;
    if (strlen(h) != n) continue;
    for (j = 0; j < n && (h[j] | 0x20) == (name[j] | 0x20); j++) {}
    if (j == n) return last.headers[i][1];
  }
  return NULL;
}

static void take_head(const picomcp_http_head *h) {
  size_t i;
  last.status = h->status;
  last.nheaders = 0;
  for (i = 0; i < h->header_count && i < MAX_HEADERS; i++) {
    snprintf(last.headers[i][0], 512, "%.*s", (int)h->headers[i].name.len, h->headers[i].name.ptr);
    snprintf(last.headers[i][1], 512, "%.*s", (int)h->headers[i].value_len, (const char *)h->headers[i].value);
    last.nheaders++;
  }
}

/* The scripted verifier: the token's claims from the vector, or refused. */
static bool verify(void *user, const uint8_t *token, size_t len, picomcp_claims *claims) {
  char name[256];
  picomcp_str c;
  (void)user;
  if (!spec_tokens.ptr || len >= sizeof name) return false;
  memcpy(name, token, len);
  name[len] = 0;
  if (!has(spec_tokens, name, &c) || kind(c) != PICOMCP_JSON_TYPE_OBJECT) return false;
  return picomcp_claims_report_json(claims, (const uint8_t *)c.ptr, c.len) == PICOMCP_STATUS_OK;
}

/* Reads a stream until it ends or waits (the body is what this read got). */
static void drain(uint64_t stream) {
  picomcp_http_response r;
  last.open = 1; last.stream = stream; last.len = 0;
  for (;;) {
    if (picomcp_endpoint_poll_response(ep, now, stream, &r)) { last.open = 0; return; }
    if (r.kind == PICOMCP_RESPONSE_KIND_HEAD) take_head(&r.head);
    else if (r.kind == PICOMCP_RESPONSE_KIND_BODY) {
      if (last.len + r.body_len < BODY) { memcpy(last.body + last.len, r.body, r.body_len); last.len += r.body_len; }
      picomcp_endpoint_advance(ep, stream, r.body_len);
    } else if (r.kind == PICOMCP_RESPONSE_KIND_WAIT) return;
    else { last.open = 0; return; }
  }
}

/* The application: the layer answers what it can; a tool call gets its name as text; any
 * other request -32601. */
static void app(picomcp_session *s, uint64_t granted) {
  picomcp_event e;
  picomcp_call c;
  while (picomcp_session_poll_served_as(s, &server, ep, granted, &e, &c) == PICOMCP_STATUS_OK &&
         e.kind != PICOMCP_EVENT_KIND_NONE) {
    if (e.kind == PICOMCP_EVENT_KIND_CALL_TOOL) {
      static char tname[256];
      picomcp_str t, n;
      picomcp_content block1;
      picomcp_tool_result r;
      tname[0] = 0;
      if (picomcp_json_at(tool_list, c.index, &t) == PICOMCP_STATUS_OK && has(t, "name", &n)) str(n, tname, sizeof tname);
      memset(&block1, 0, sizeof block1);
      block1.kind = PICOMCP_CONTENT_KIND_TEXT;
      block1.text = S(tname);
      memset(&r, 0, sizeof r);
      r.content = &block1; r.content_count = 1;
      picomcp_server_respond_tool(&server, s, e.id, c.index, &r, NULL);
    } else if (e.kind >= PICOMCP_EVENT_KIND_CALL_TOOL && e.kind <= PICOMCP_EVENT_KIND_CALL_COMPLETE) {
      picomcp_session_respond_error(s, e.id, -32601, S("not scripted"), S(NULL));
    } else if (e.kind == PICOMCP_EVENT_KIND_REQUEST) {
      picomcp_session_respond_error(s, e.id, -32601, S("Method not found"), S(NULL));
    }
  }
}

static int send_request(uint32_t method, const char *target, const picomcp_http_header *hs, size_t nh,
                        const char *body, size_t body_len) {
  static uint8_t counter;
  picomcp_http_request req;
  picomcp_http_outcome out;
  picomcp_principal who;
  bool found = false;
  uint8_t entropy[PICOMCP_ENDPOINT_ENTROPY_LEN];
  uint64_t granted = ~(uint64_t)0;
  picomcp_session *s;
  memset(&req, 0, sizeof req);
  req.method = method; req.target = S(target); req.headers = hs; req.header_count = nh;
  req.body = (const uint8_t *)body; req.body_len = body_len;
  counter++;
  memset(entropy, counter, sizeof entropy);
  if (picomcp_endpoint_handle_request_auth(ep, now, &req, entropy, unix0 + (now - start) / 1000, verify, NULL, &out))
    return 0;
  last.open = 0; last.len = 0; last.nheaders = 0;
  if (out.kind == PICOMCP_OUTCOME_KIND_RESPOND) {
    take_head(&out.head);
    if (out.body_len < BODY) { memcpy(last.body, out.body, out.body_len); last.len = out.body_len; }
    return 1;
  }
  if (out.kind == PICOMCP_OUTCOME_KIND_STREAM) { drain(out.stream); return 1; }
  if (out.slot >= POOL) return 0;
  if (picomcp_endpoint_principal(ep, &who, &found) == PICOMCP_STATUS_OK && found) granted = who.granted;
  if (out.fresh || !pool_s[out.slot]) {
    picomcp_session_free(pool_s[out.slot]);
    pool_s[out.slot] = NULL;
    if (picomcp_session_new(&sess_cfg, now, &pool_s[out.slot])) return 0;
  }
  last_slot = out.slot;
  s = pool_s[out.slot];
  picomcp_session_handle_message(s, now, (const uint8_t *)body, body_len);
  app(s, granted);
  picomcp_endpoint_collect(ep, now, out.slot, s);
  if (!out.has_stream) { take_head(&out.head); return 1; }
  drain(out.stream);
  return 1;
}

/* The auth-param `name` of a Bearer challenge into `out`; 0 when absent. */
static int challenge_param(const char *value, const char *name, char *out, size_t cap) {
  const char *p = value + 7;
  size_t n = strlen(name);
  if (strncmp(value, "Bearer ", 7)) return 0;
  while (*p) {
    const char *eq = strstr(p, "=\""), *end;
    if (!eq) return 0;
    while (*p == ' ' || *p == ',') p++;
    end = strchr(eq + 2, '"');
    if (!end) return 0;
    if ((size_t)(eq - p) == n && !strncmp(p, name, n)) {
      snprintf(out, cap, "%.*s", (int)(end - eq - 2), eq + 2);
      return 1;
    }
    p = end + 1;
  }
  return 0;
}

/* The `data:` payloads of the SSE body (empty ones skipped) as one JSON array in `out`. */
static size_t sse_array(char *out, size_t cap) {
  size_t n = 0, i = 0;
  int first = 1;
  n += (size_t)snprintf(out + n, cap - n, "[");
  while (i < last.len) {
    size_t j = i;
    while (j < last.len && last.body[j] != '\n') j++;
    if (j - i > 5 && !strncmp(last.body + i, "data:", 5)) {
      size_t k = i + 5;
      while (k < j && last.body[k] == ' ') k++;
      if (k < j && n + (j - k) + 2 < cap) {
        if (!first) out[n++] = ',';
        memcpy(out + n, last.body + k, j - k);
        n += j - k;
        first = 0;
      }
    }
    i = j + 1;
  }
  if (n + 1 < cap) out[n++] = ']';
  out[n] = 0;
  return n;
}

/* The `id:` of the event number `index` in the body. */
static int event_id(size_t index, char *out, size_t cap) {
  size_t i = 0, seen = 0;
  while (i < last.len) {
    size_t j = i;
    while (j < last.len && last.body[j] != '\n') j++;
    if (j - i >= 3 && !strncmp(last.body + i, "id:", 3)) {
      if (seen++ == index) {
        size_t k = i + 3;
        while (k < j && last.body[k] == ' ') k++;
        snprintf(out, cap, "%.*s", (int)(j - k), last.body + k);
        return 1;
      }
    }
    i = j + 1;
  }
  return 0;
}

static int make_endpoint(picomcp_str spec) {
  static picomcp_str hosts[8], as[4], scopes[64], supported[64];
  static char text[64 * 1024];
  static picomcp_auth_config auth;
  picomcp_endpoint_config c;
  picomcp_str v, e, a, srv;
  size_t i, size = 0, align = 0, tl = 0;
  int64_t n;
  long m;
#define TEXT(val, dst) do { m = str(val, text + tl, sizeof text - tl); if (m < 0) return 0; (dst).ptr = text + tl; (dst).len = (size_t)m; tl += (size_t)m + 1; } while (0)
  picomcp_endpoint_config_init(&c);
  if (!has(spec, "server", &srv)) srv = S("{}");
  if (!make_server(srv, sess_caps, sizeof sess_caps)) return 0;
  served = 1;
  if (!has(srv, "tools", &tool_list)) tool_list = S("[]");
  c.server = &server;
  if (has(spec, "path", &v)) TEXT(v, c.path);
  c.check_hosts = flag(spec, "check_hosts", c.check_hosts);
  if (has(spec, "allowed_hosts", &v)) {
    for (i = 0; i < 8 && picomcp_json_at(v, i, &e) == PICOMCP_STATUS_OK; i++) TEXT(e, hosts[i]);
    c.allowed_hosts = hosts; c.allowed_host_count = i;
  }
  if (has(spec, "max_body", &v) && !picomcp_json_int(v, &n)) c.max_body = (size_t)n; else c.max_body = 8192;
  if (has(spec, "session_idle_ms", &v) && !picomcp_json_int(v, &n)) c.session_idle_ms = (uint64_t)n;
  if (has(spec, "keepalive_ms", &v) && !picomcp_json_int(v, &n)) c.keepalive_ms = (uint64_t)n;
  if (has(spec, "retry_ms", &v) && !picomcp_json_int(v, &n)) c.retry_ms = (uint32_t)n;
  if (has(spec, "response_mode", &v)) {
    char mode[16] = "";
    str(v, mode, sizeof mode);
    c.response_mode = !strcmp(mode, "json") ? PICOMCP_RESPONSE_MODE_JSON : !strcmp(mode, "sse") ? PICOMCP_RESPONSE_MODE_SSE : PICOMCP_RESPONSE_MODE_AUTO;
  }
  c.get_stream = flag(spec, "get_stream", c.get_stream);
  if (has(spec, "versions", &v)) c.versions = versions_of(v);
  c.slots = has(spec, "slots", &v) && !picomcp_json_int(v, &n) ? (size_t)n : 4;
  c.streams = has(spec, "streams", &v) && !picomcp_json_int(v, &n) ? (size_t)n : 8;
  if (c.slots > POOL) return 0;
  spec_tokens = S(NULL);
  unix0 = 0;
  if (has(spec, "auth", &a)) {
    picomcp_auth_config_init(&auth);
    if (has(a, "resource", &v)) TEXT(v, auth.resource);
    if (has(a, "authorization_servers", &v)) {
      for (i = 0; i < 4 && picomcp_json_at(v, i, &e) == PICOMCP_STATUS_OK; i++) TEXT(e, as[i]);
      auth.authorization_servers = as; auth.authorization_server_count = i;
    }
    if (has(a, "scopes", &v)) {
      for (i = 0; i < 64 && picomcp_json_at(v, i, &e) == PICOMCP_STATUS_OK; i++) TEXT(e, scopes[i]);
      auth.scopes = scopes; auth.scope_count = i;
    }
    if (has(a, "scopes_supported", &v)) {
      for (i = 0; i < 64 && picomcp_json_at(v, i, &e) == PICOMCP_STATUS_OK; i++) TEXT(e, supported[i]);
      auth.scopes_supported = supported; auth.scopes_supported_count = i;
    }
    if (has(a, "required", &v)) TEXT(v, auth.required);
    if (has(a, "leeway_s", &v) && !picomcp_json_int(v, &n)) auth.leeway_s = (uint64_t)n;
    auth.require_expiry = flag(a, "require_expiry", auth.require_expiry);
    if (has(a, "unix_s", &v) && !picomcp_json_int(v, &n)) unix0 = (uint64_t)n;
    if (!has(a, "tokens", &spec_tokens)) spec_tokens = S(NULL);
    c.auth = &auth;
  }
#undef TEXT
  if (picomcp_endpoint_storage_size(&c, &size, &align) || size > sizeof ep_mem) {
    snprintf(why, sizeof why, "endpoint storage: %zu bytes", size);
    return 0;
  }
  if (picomcp_endpoint_init(ep_mem, sizeof ep_mem, &c, &ep)) { snprintf(why, sizeof why, "endpoint init"); return 0; }
  picomcp_config_init(&sess_cfg, PICOMCP_ROLE_SERVER);
  sess_cfg.name = S("vec-http");
  sess_cfg.version = S("0.0.0");
  sess_cfg.capabilities = S(sess_caps);
  sess_cfg.versions = c.versions;
  sess_cfg.max_line = c.max_body > 8192 ? c.max_body : 8192;
  sess_cfg.inbound_slots = 8;
  sess_cfg.outbound_slots = 4;
  if (has(spec, "state_key", &v)) {
    static char key[256];
    long k = str(v, key, sizeof key);
    if (k > 0) { sess_cfg.state_key = (const uint8_t *)key; sess_cfg.state_key_len = (size_t)k; }
  }
  return 1;
}

/* Checks the last response against an expect_http object. */
static int check(picomcp_str exp, int step) {
  static char a[BODY], b[512], c[512];
  picomcp_str v, k, w, actual;
  size_t i;
  int64_t n;
  if (has(exp, "status", &v) && (picomcp_json_int(v, &n) || n != last.status)) {
    snprintf(why, sizeof why, "step %d: status %u", step, last.status); return 0;
  }
  if (has(exp, "headers", &v))
    for (i = 0; picomcp_json_member_at(v, i, &k, &w) == PICOMCP_STATUS_OK; i++) {
      const char *got;
      str(k, b, sizeof b);
      got = header_of(b);
      if (kind(w) == PICOMCP_JSON_TYPE_NULL ? got != NULL
          : !got || (str(w, c, sizeof c) >= 0 && strcmp(c, "<any>") && strcmp(c, got))) {
        snprintf(why, sizeof why, "step %d: header %s: %s", step, b, got ? got : "(absent)"); return 0;
      }
    }
  if (has(exp, "body", &v)) {
    if (kind(v) == PICOMCP_JSON_TYPE_STRING) {
      long m = str(v, a, sizeof a);
      if (m < 0 || (size_t)m != last.len || memcmp(a, last.body, last.len)) { snprintf(why, sizeof why, "step %d: body %.*s", step, (int)last.len, last.body); return 0; }
    } else {
      actual = view(last.body, last.len);
      if (!match(v, actual)) { snprintf(why, sizeof why, "step %d: body %.*s", step, (int)last.len, last.body); return 0; }
    }
  }
  if (has(exp, "body_contains", &v)) {
    last.body[last.len < BODY ? last.len : BODY - 1] = 0;
    if (str(v, a, sizeof a) < 0 || !strstr(last.body, a)) { snprintf(why, sizeof why, "step %d: body lacks %.900s", step, a); return 0; }
  }
  if (has(exp, "challenge", &v)) {
    const char *value = header_of("www-authenticate");
    if (!value || strncmp(value, "Bearer ", 7)) { snprintf(why, sizeof why, "step %d: no Bearer challenge", step); return 0; }
    for (i = 0; picomcp_json_member_at(v, i, &k, &w) == PICOMCP_STATUS_OK; i++) {
      int found;
      str(k, b, sizeof b);
      found = challenge_param(value, b, c, sizeof c);
      if (kind(w) == PICOMCP_JSON_TYPE_NULL ? found
          : !found || (str(w, a, sizeof a) >= 0 && strcmp(a, "<any>") && strcmp(a, c))) {
        snprintf(why, sizeof why, "step %d: challenge %s in %s", step, b, value); return 0;
      }
    }
  }
  if (has(exp, "sse", &v)) {
    size_t len = sse_array(a, sizeof a);
    if (!match(v, view(a, len))) { snprintf(why, sizeof why, "step %d: events %.900s", step, a); return 0; }
  }
  if (has(exp, "open", &v)) {
    bool want = false;
    picomcp_json_bool(v, &want);
    if (want != (last.open != 0)) { snprintf(why, sizeof why, "step %d: open %d", step, last.open); return 0; }
  }
  if (has(exp, "save", &v))
    for (i = 0; picomcp_json_member_at(v, i, &k, &w) == PICOMCP_STATUS_OK && nvars < MAX_VARS; i++) {
      const char *got = NULL;
      str(w, b, sizeof b);
      if (!strncmp(b, "header:", 7)) got = header_of(b + 7);
      else if (!strncmp(b, "event_id:", 9) && event_id((size_t)atoi(b + 9), c, sizeof c)) got = c;
      if (!got) { snprintf(why, sizeof why, "step %d: nothing to save from %s", step, b); return 0; }
      str(k, vars[nvars].name, sizeof vars[nvars].name);
      snprintf(vars[nvars].value, sizeof vars[nvars].value, "%s", got);
      nvars++;
    }
  return 1;
}

static int run_http(const char *path) {
  static char name[64], hv[MAX_HEADERS][2][512], target[512], method[16], body[BODY];
  static picomcp_http_header hs[MAX_HEADERS];
  char *data, *p;
  long size = 0;
  int step = 0, ok = 0;
  size_t i;
  picomcp_str line;
  if (!(data = read_file(path, &size))) { snprintf(why, sizeof why, "cannot read"); return report(path, 0, 0); }
  ep = NULL; served = 0; nvars = 0; last_slot = (size_t)-1;
  memset(streams, 0, sizeof streams);
  start = now = 1000;
  for (p = data; next_step(&p, data + size, &line);) {
    picomcp_str v, k, x, e;
    step++;
    if (step == 1) {
      if (!has(line, "endpoint", &v) || !make_endpoint(v)) {
        if (!why[0]) snprintf(why, sizeof why, "step 1: no endpoint");
        goto fail;
      }
      continue;
    }
    if (picomcp_json_member_at(line, 0, &k, &v) || str(k, name, sizeof name) < 0) FAIL("step %d: bad line", step);
    if (!strcmp(name, "http")) {
      size_t nh = 0, blen = 0;
      uint32_t m = PICOMCP_HTTP_METHOD_POST;
      strcpy(method, "POST"); strcpy(target, "/mcp");
      if (has(v, "method", &x)) str(x, method, sizeof method);
      if (has(v, "path", &x)) str(x, target, sizeof target);
      m = !strcmp(method, "GET") ? PICOMCP_HTTP_METHOD_GET : !strcmp(method, "POST") ? PICOMCP_HTTP_METHOD_POST
        : !strcmp(method, "DELETE") ? PICOMCP_HTTP_METHOD_DELETE : !strcmp(method, "OPTIONS") ? PICOMCP_HTTP_METHOD_OPTIONS
        : !strcmp(method, "HEAD") ? PICOMCP_HTTP_METHOD_HEAD : PICOMCP_HTTP_METHOD_OTHER;
      if (has(v, "headers", &x))
        for (i = 0; nh < MAX_HEADERS && picomcp_json_member_at(x, i, &k, &e) == PICOMCP_STATUS_OK; i++, nh++) {
          str(k, hv[nh][0], 512);
          str(e, hv[nh][1], 512);
          if (hv[nh][1][0] == '$') {
            const char *val = var(hv[nh][1] + 1);
            if (!val) FAIL("step %d: no %s", step, hv[nh][1]);
            snprintf(hv[nh][1], 512, "%s", val);
          }
          hs[nh].name = S(hv[nh][0]);
          hs[nh].value = (const uint8_t *)hv[nh][1];
          hs[nh].value_len = strlen(hv[nh][1]);
        }
      if (has(v, "body", &x)) {
        if (kind(x) == PICOMCP_JSON_TYPE_STRING) {
          long bl = str(x, body, sizeof body);
          blen = bl < 0 ? 0 : (size_t)bl;
        } else if (kind(x) != PICOMCP_JSON_TYPE_NULL && x.len < sizeof body) {
          memcpy(body, x.ptr, x.len); /* the JSON text as written in the vector */
          blen = x.len;
        }
      }
      if (!send_request(m, target, hs, nh, body, blen)) FAIL("step %d: the request failed", step);
      if (has(v, "stream", &x) && last.open)
        for (i = 0; i < MAX_STREAMS; i++)
          if (!streams[i].name[0]) {
            str(x, streams[i].name, sizeof streams[i].name);
            streams[i].stream = last.stream; streams[i].status = last.status;
            memcpy(streams[i].headers, last.headers, sizeof last.headers); streams[i].nheaders = last.nheaders;
            break;
          }
    } else if (!strcmp(name, "expect_http")) {
      if (!check(v, step)) goto fail;
    } else if (!strcmp(name, "read") || !strcmp(name, "detach")) {
      str(v, target, sizeof target);
      for (i = 0; i < MAX_STREAMS && strcmp(streams[i].name, target); i++) {}
      if (i == MAX_STREAMS) FAIL("step %d: no stream %s", step, target);
      if (name[0] == 'd') { picomcp_endpoint_detach(ep, streams[i].stream); streams[i].name[0] = 0; }
      else {
        drain(streams[i].stream);
        last.status = streams[i].status;
        memcpy(last.headers, streams[i].headers, sizeof last.headers); last.nheaders = streams[i].nheaders;
      }
    } else if (!strcmp(name, "notify")) {
      picomcp_str uri;
      uint32_t change = change_of(v, target, sizeof target, &uri);
      if (last_slot >= POOL || !pool_s[last_slot]) FAIL("step %d: no session delivered to yet", step);
      if (picomcp_session_notify(pool_s[last_slot], change, uri, NULL)) FAIL("step %d: notify", step);
      picomcp_endpoint_collect(ep, now, last_slot, pool_s[last_slot]);
    } else if (!strcmp(name, "advance_ms")) {
      int64_t t = 0;
      picomcp_json_int(v, &t);
      now += (uint64_t)t;
      picomcp_endpoint_handle_timeout(ep, now);
    } else {
      FAIL("step %d: unknown step %s", step, name);
    }
  }
  ok = 1;
fail:
  report(path, ok, step);
  for (i = 0; i < POOL; i++) { picomcp_session_free(pool_s[i]); pool_s[i] = NULL; }
  if (ep) picomcp_endpoint_deinit(ep);
  if (served) picomcp_server_deinit(&server);
  free(data);
  return ok;
}

int main(int argc, char **argv) { return run_files(argc, argv, "test_vectors_http", run_http); }
