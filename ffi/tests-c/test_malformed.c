/* Replays the bad-input corpus (tests/malformed/cases.jsonl) through the C API: every
 * bad line gets exactly the expected replies, and a ping afterwards is still answered.
 * The corpus is read with the library's own JSON readers (no other JSON code here).
 * Same selection as the core's in-process runner: no `tools` cases (they need the demo
 * server), no batch expectations, no isError results, no sleep.
 *
 * usage: test_malformed CASES.jsonl [--quick]   (--quick: skip the byte-by-byte pass) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picomcp.h"

#define S(lit) picomcp_str_from_cstr(lit)
#define LINE 4096
#define MAX_REPLIES 16

static uint64_t mem[(64 * 1024 + 6 * LINE) / 8 + 1024];
static const char *DEMO_CAPS = "{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,\"listChanged\":true},"
                               "\"prompts\":{\"listChanged\":true},\"logging\":{},\"completions\":{}}";

typedef struct { char text[4 * LINE]; size_t len; } line;
static line replies[MAX_REPLIES];
static int nreplies;
static char why[512];

static picomcp_str view(const char *p, size_t n) { picomcp_str s; s.ptr = p; s.len = n; return s; }

static int has(picomcp_str obj, const char *key, picomcp_str *v) {
  return picomcp_json_get(obj, S(key), v) == PICOMCP_STATUS_OK;
}

/* Decoded string member into buf (NUL-terminated); returns its length or -1. */
static long str_member(picomcp_str obj, const char *key, char *buf, size_t cap) {
  picomcp_str v;
  size_t n = 0;
  if (!has(obj, key, &v) || picomcp_json_string(v, buf, cap, &n) != PICOMCP_STATUS_OK) return -1;
  return (long)n;
}

static int contains(picomcp_str v, const char *needle) {
  size_t i, k = strlen(needle);
  for (i = 0; i + k <= v.len; i++)
    if (memcmp(v.ptr + i, needle, k) == 0) return 1;
  return 0;
}

/* Collects whole lines the session sends. */
static int take_output(picomcp_session *s) {
  static char buf[8 * LINE];
  size_t n = 0, i, start;
  for (;;) {
    if (picomcp_session_poll_transmit(s, (uint8_t *)buf, sizeof buf, &n) != PICOMCP_STATUS_OK) return 0;
    if (n == 0) return 1;
    for (start = 0, i = 0; i < n; i++) {
      if (buf[i] != '\n') continue;
      if (nreplies == MAX_REPLIES || i - start >= sizeof replies[0].text) { strcpy(why, "too many or too long replies"); return 0; }
      memcpy(replies[nreplies].text, buf + start, i - start);
      replies[nreplies].len = i - start;
      nreplies++;
      start = i + 1;
    }
  }
}

/* A generic host: answers every request with {}. */
static void answer_requests(picomcp_session *s) {
  picomcp_event e;
  while (picomcp_session_poll_event(s, &e) == PICOMCP_STATUS_OK && e.kind != PICOMCP_EVENT_KIND_NONE)
    if (e.kind == PICOMCP_EVENT_KIND_REQUEST) picomcp_session_respond(s, e.id, S("{}"));
}

static int feed(picomcp_session *s, const uint8_t *bytes, size_t len, size_t chunk) {
  size_t off = 0, end, taken;
  while (off < len) {
    end = len - off < chunk ? len : off + chunk;
    while (off < end) {
      if (picomcp_session_handle_bytes(s, 1, bytes + off, end - off, &taken) != PICOMCP_STATUS_OK) return 0;
      off += taken;
      if (!take_output(s)) return 0;
      answer_requests(s);
      if (!take_output(s)) return 0;
    }
  }
  return 1;
}

/* Strict equality of two JSON values as the runner defines it (type and value). */
static int same_value(picomcp_str a, picomcp_str b) {
  uint32_t ta = 0, tb = 0;
  static char x[2 * LINE], y[2 * LINE];
  size_t nx = 0, ny = 0;
  double dx, dy;
  if (picomcp_json_kind(a, &ta) || picomcp_json_kind(b, &tb) || ta != tb) return 0;
  if (ta == PICOMCP_JSON_TYPE_STRING)
    return !picomcp_json_string(a, x, sizeof x, &nx) && !picomcp_json_string(b, y, sizeof y, &ny) && nx == ny && !memcmp(x, y, nx);
  if (ta == PICOMCP_JSON_TYPE_NUMBER) {
    if (a.len == b.len && !memcmp(a.ptr, b.ptr, a.len)) return 1;
    return !picomcp_json_number(a, &dx) && !picomcp_json_number(b, &dy) && dx == dy;
  }
  return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

static int check_reply(picomcp_str exp, const line *r) {
  picomcp_str reply = view(r->text, r->len), v, w, id;
  static char raw[2 * LINE];
  long n;
  int64_t want, got;
  uint32_t t = 0;
  if (picomcp_json_validate(reply)) { snprintf(why, sizeof why, "invalid JSON reply %.200s", r->text); return 0; }
  if (has(exp, "code", &v)) {
    if (picomcp_json_int(v, &want) || !has(reply, "error", &w) || !has(w, "code", &w) || picomcp_json_int(w, &got) || got != want) {
      snprintf(why, sizeof why, "expected error %lld, got %.300s", (long long)want, r->text); return 0;
    }
  } else if (!has(reply, "result", &w) || picomcp_json_kind(w, &t) || t != PICOMCP_JSON_TYPE_OBJECT) {
    snprintf(why, sizeof why, "expected a result, got %.300s", r->text); return 0;
  }
  if (has(exp, "id", &v)) {
    if (!has(reply, "id", &id) || !same_value(v, id)) { snprintf(why, sizeof why, "expected id %.*s, got %.300s", (int)v.len, v.ptr, r->text); return 0; }
  } else if ((n = str_member(exp, "id_raw", raw, sizeof raw)) >= 0) {
    if (!has(reply, "id", &id) || id.len != (size_t)n || memcmp(id.ptr, raw, id.len)) { snprintf(why, sizeof why, "expected raw id %.100s, got %.300s", raw, r->text); return 0; }
  } else if (has(reply, "id", &id)) {
    snprintf(why, sizeof why, "expected no id, got %.300s", r->text); return 0;
  }
  return 1;
}

/* The bytes a case sends: `send` (with @PAD(N)@ expanded) or `send_hex`. */
static size_t case_bytes(picomcp_str c, uint8_t *out, size_t cap) {
  static char text[4 * LINE], hex[8 * LINE];
  long n = str_member(c, "send", text, sizeof text), i, k = 0;
  size_t o = 0;
  if (n < 0) {
    n = str_member(c, "send_hex", hex, sizeof hex);
    for (i = 0; i < n && o < cap; i++) {
      int d = hex[i] >= 'a' ? hex[i] - 'a' + 10 : hex[i] >= 'A' ? hex[i] - 'A' + 10 : hex[i] - '0';
      if (hex[i] == ' ' || hex[i] == '\n' || hex[i] == '\t') continue;
      if (k++ % 2 == 0) out[o] = (uint8_t)(d << 4); else out[o++] |= (uint8_t)d;
    }
    return o;
  }
  for (i = 0; i < n && o < cap; i++) {
    unsigned long pad;
    char *end;
    if (!strncmp(text + i, "@PAD(", 5) && (pad = strtoul(text + i + 5, &end, 10), !strncmp(end, ")@", 2))) {
      while (pad-- > 0 && o < cap) out[o++] = 'x';
      i = (long)(end + 1 - text);
    } else {
      out[o++] = (uint8_t)text[i];
    }
  }
  return o;
}

static int run_case(picomcp_str c, size_t chunk) {
  static uint8_t bytes[1 << 20];
  static char version[32], init[512];
  picomcp_config cfg;
  picomcp_session *s = NULL;
  picomcp_str expect, e;
  size_t len, i;
  const char *after = "{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n";
  picomcp_config_init(&cfg, PICOMCP_ROLE_SERVER);
  cfg.name = S("test-server");
  cfg.version = S("1.0.0");
  cfg.capabilities = S(DEMO_CAPS);
  cfg.max_line = LINE;
  cfg.inbound_slots = 8;
  cfg.outbound_slots = 8;
  cfg.arena_bytes = 1024;
  cfg.batch_bytes = 1024;
  if (picomcp_session_init(mem, sizeof mem, &cfg, 0, &s)) { strcpy(why, "session init failed"); return 0; }
  nreplies = 0;
  if (str_member(c, "state", version, sizeof version) < 0 || strcmp(version, "fresh") != 0) {
    if (str_member(c, "version", version, sizeof version) < 0) strcpy(version, "2025-11-25");
    snprintf(init, sizeof init, "{\"jsonrpc\":\"2.0\",\"id\":\"hs-init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
             "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", version);
    if (!feed(s, (const uint8_t *)init, strlen(init), (size_t)-1) || nreplies != 1) { snprintf(why, sizeof why, "handshake: %d replies", nreplies); goto fail; }
    nreplies = 0;
  }
  len = case_bytes(c, bytes, sizeof bytes);
  if (!feed(s, bytes, len, chunk)) goto fail;
  if (!has(c, "expect", &expect) || picomcp_json_len(expect, &len)) { strcpy(why, "no expect"); goto fail; }
  if ((size_t)nreplies != len) { snprintf(why, sizeof why, "expected %zu replies, got %d: %.300s", len, nreplies, nreplies ? replies[0].text : ""); goto fail; }
  for (i = 0; i < len; i++) {
    replies[i].text[replies[i].len] = 0;
    if (picomcp_json_at(expect, i, &e) || !check_reply(e, &replies[i])) goto fail;
  }
  nreplies = 0;
  if (!feed(s, (const uint8_t *)after, strlen(after), (size_t)-1) || nreplies != 1 ||
      replies[0].len != 42 || memcmp(replies[0].text, "{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"result\":{}}", 42)) {
    snprintf(why, sizeof why, "ping after the case: %d replies", nreplies); goto fail;
  }
  picomcp_session_deinit(s);
  return 1;
fail:
  picomcp_session_deinit(s);
  return 0;
}

static int in_process(picomcp_str c) {
  static char category[32], send[4 * LINE];
  picomcp_str expect;
  if (str_member(c, "category", category, sizeof category) < 0 || !strcmp(category, "tools")) return 0;
  if (!has(c, "expect", &expect) || contains(expect, "\"batch\"") || contains(c, "is_error")) return 0;
  if (str_member(c, "send", send, sizeof send) >= 0 && strstr(send, "\"sleep\"")) return 0;
  return 1;
}

int main(int argc, char **argv) {
  static const size_t chunks[] = {(size_t)-1, 7, 1};
  static char name[256];
  FILE *f;
  char *text, *p, *nl;
  long size;
  int ran = 0, failed = 0, quick = argc > 2 && !strcmp(argv[2], "--quick"), k;
  if (argc < 2 || !(f = fopen(argv[1], "rb"))) { fprintf(stderr, "usage: test_malformed CASES.jsonl [--quick]\n"); return 2; }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)size + 1);
  if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
  fclose(f);
  text[size] = 0;
  for (p = text; p < text + size; p = nl + 1) {
    picomcp_str c;
    if (!(nl = memchr(p, '\n', (size_t)(text + size - p)))) nl = text + size;
    c = view(p, (size_t)(nl - p));
    while (c.len && c.ptr[c.len - 1] == '\r') c.len--;
    if (c.len == 0 || c.ptr[0] == '#') continue;
    if (picomcp_json_validate(c)) { fprintf(stderr, "not JSON: %.80s\n", c.ptr); return 2; }
    if (!in_process(c)) continue;
    ran++;
    str_member(c, "name", name, sizeof name);
    for (k = 0; k < 3 - quick; k++) {
      if (!run_case(c, chunks[k])) {
        failed++;
        printf("not ok - %s (chunk %ld): %s\n", name, chunks[k] == (size_t)-1 ? -1L : (long)chunks[k], why);
        break;
      }
    }
  }
  free(text);
  printf("test_malformed: %d cases through the C API, %d failed\n", ran, failed);
  return failed || ran < 60 ? 1 : 0;
}
