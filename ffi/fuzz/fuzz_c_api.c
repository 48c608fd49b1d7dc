/* libFuzzer target for the C ABI: a session (server or client, either era, small or
 * roomy limits) placed in static memory without malloc, driven by a program decoded from
 * the input: peer bytes in arbitrary chunks, time steps, drained and partly drained
 * output, answers to requests (results, errors, stale and repeated handles), requests
 * and notifications of our own, cancellation, change notifications, end of input and
 * close. Invariants: no crash or sanitizer report; every call on a live session returns
 * a documented status; handle_bytes never takes more than offered; poll_transmit never
 * writes past `cap` and reports a required size larger than `cap` when it refuses.
 * Build and run: ffi/fuzz/run.sh [SECONDS]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "picomcp.h"

#define S(lit) picomcp_str_from_cstr(lit)
#define MUST(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static uint64_t mem[512 * 1024 / 8];
static uint8_t out[8192];

static const char *const SERVER_CAPS =
    "{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,\"listChanged\":true},"
    "\"prompts\":{\"listChanged\":true},\"logging\":{},\"completions\":{}}";
static const char *const CLIENT_CAPS = "{\"roots\":{},\"sampling\":{},\"elicitation\":{}}";
static const char *const METHODS[] = {"ping", "tools/list", "tools/call", "roots/list",
                                      "sampling/createMessage", "notifications/tools/list_changed",
                                      "no/such"};

/* Writes out everything pending, in pieces of at most `step` bytes. */
static void drain_output(picomcp_session *s, size_t step) {
  for (int guard = 0; guard < 100000; guard++) {
    picomcp_str v = {NULL, 0};
    MUST(picomcp_session_pending_transmit(s, &v) == PICOMCP_STATUS_OK);
    if (v.len == 0) return;
    size_t n = v.len < step ? v.len : step;
    MUST(picomcp_session_advance_transmit(s, n) == PICOMCP_STATUS_OK);
  }
}

/* Takes every event; answers requests in a way picked by `how`. */
static void drain_events(picomcp_session *s, uint8_t how) {
  for (int guard = 0; guard < 10000; guard++) {
    picomcp_event e;
    memset(&e, 0, sizeof e);
    MUST(picomcp_session_poll_event(s, &e) == PICOMCP_STATUS_OK);
    if (e.kind == PICOMCP_EVENT_KIND_NONE) return;
    if (e.kind == PICOMCP_EVENT_KIND_REQUEST) {
      picomcp_status st;
      switch (how % 4) {
      case 0: st = picomcp_session_respond(s, e.id, S("{\"content\":[]}")); break;
      case 1: st = picomcp_session_respond_error(s, e.id, -32602, S("bad"), S("{\"x\":1}")); break;
      case 2: st = picomcp_session_respond(s, e.id, S("[not an object]")); break;
      default: continue; /* leave it open */
      }
      (void)st; /* any documented status; the session must stay usable */
      (void)picomcp_session_respond(s, e.id, S("{}")); /* a second answer: refused or ok */
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  uint8_t cfg = data[0];
  data++;
  size--;
  int server = cfg & 1;
  picomcp_config c;
  MUST(picomcp_config_init(&c, server ? PICOMCP_ROLE_SERVER : PICOMCP_ROLE_CLIENT) == PICOMCP_STATUS_OK);
  c.name = S("fuzz");
  c.version = S("1.0");
  c.capabilities = S(server ? SERVER_CAPS : CLIENT_CAPS);
  c.versions = (cfg & 6) == 0 ? 16 /* 2026-07-28 only */ : (cfg & 4) ? PICOMCP_VERSIONS_LEGACY : PICOMCP_VERSIONS_ALL;
  c.max_line = (cfg & 8) ? 512 : 4096;
  c.inbound_slots = (cfg & 16) ? 2 : 8;
  c.outbound_slots = (cfg & 16) ? 1 : 8;
  c.request_timeout_ms = (cfg & 32) ? 0 : 500;
  c.arena_bytes = 512;
  c.batch_bytes = server ? 1024 : 0;
  size_t need = 0, align = 0;
  MUST(picomcp_session_storage_size(&c, &need, &align) == PICOMCP_STATUS_OK);
  MUST(need <= sizeof mem);
  picomcp_session *s = NULL;
  MUST(picomcp_session_init(mem, sizeof mem, &c, 0, &s) == PICOMCP_STATUS_OK && s != NULL);

  uint64_t now = 0;
  uint32_t last_out = 0;
  while (size > 0) {
    uint8_t op = *data++;
    size--;
    switch (op & 7) {
    case 0: case 1: case 2: { /* peer bytes, a chunk of up to 64 */
      size_t len = (size_t)(op >> 3) * 2 + 1;
      if (len > size) len = size;
      size_t taken = 0;
      picomcp_status st = picomcp_session_handle_bytes(s, now, data, len, &taken);
      MUST(st == PICOMCP_STATUS_OK);
      MUST(taken <= len);
      if (taken < len) { /* backpressure: drain, offer the rest once more */
        drain_output(s, 1 + (op >> 3));
        drain_events(s, op >> 5);
        size_t more = 0;
        (void)picomcp_session_handle_bytes(s, now, data + taken, len - taken, &more);
        MUST(more <= len - taken);
      }
      data += len;
      size -= len;
      break;
    }
    case 3: /* time passes */
      now += (uint64_t)(op >> 3) * 37;
      MUST(picomcp_session_handle_timeout(s, now) == PICOMCP_STATUS_OK);
      break;
    case 4:
      drain_events(s, op >> 3);
      break;
    case 5: { /* copy output into a small buffer */
      size_t cap = (size_t)(op >> 3) * 97 + 1;
      size_t n = 0;
      picomcp_status st = picomcp_session_poll_transmit(s, out, cap, &n);
      MUST(st == PICOMCP_STATUS_OK || st == PICOMCP_STATUS_BUFFER_TOO_SMALL);
      if (st == PICOMCP_STATUS_OK) MUST(n <= cap);
      else MUST(n > cap);
      break;
    }
    case 6: { /* our own traffic */
      const char *m = METHODS[(op >> 3) % (sizeof METHODS / sizeof METHODS[0])];
      if (op & 0x80) {
        (void)picomcp_session_send_notification(s, S(m), S("{}"));
      } else {
        uint32_t id = 0;
        if (picomcp_session_send_request(s, now, S(m), S("{\"name\":\"echo\"}"), NULL, &id) == PICOMCP_STATUS_OK)
          last_out = id;
      }
      break;
    }
    default: /* 7: cancel, notify, end of input, close */
      switch ((op >> 3) & 3) {
      case 0: (void)picomcp_session_cancel(s, last_out, S("fuzz")); break;
      case 1: { size_t n = 0; (void)picomcp_session_notify(s, (op >> 5) & 3, S("test://x"), &n); break; }
      case 2: MUST(picomcp_session_handle_eof(s, now) == PICOMCP_STATUS_OK); break;
      default: MUST(picomcp_session_close(s) == PICOMCP_STATUS_OK); break;
      }
      break;
    }
    drain_output(s, 4096);
  }
  drain_events(s, 0);
  drain_output(s, 4096);
  MUST(picomcp_session_deinit(s) == PICOMCP_STATUS_OK);
  return 0;
}
