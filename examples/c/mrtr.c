/* The 0.2.0 conformance suite's diagnostic fixtures for 2026-07-28, as the Rust demo's mrtr.rs: the tools that answer
 * with input_required results (MRTR, SEP-2322) and the prompt test_input_required_result_prompt,
 * test_missing_capability (-32021), test_streaming_elicitation, test_logging_tool (per-request logLevel) and the
 * list-change triggers test_trigger_tool_change / test_trigger_prompt_change.
 *
 * Every round is stateless here: what was asked before travels in the requestState, which the core seals with the
 * key of picomcp_config.state_key (state_key below) and verifies before a retry reaches us (a tampered or foreign
 * state is the core's -32602), so the plain states are our own constants. The questions' params are constants too,
 * and the answers are read from the retry's params (the event's `json`) with picomcp_json_*: no malloc. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "demo.h"
#define LIST_POLL_MS 100 /* how often a 2026-07-28 HTTP session looks for list changes other sessions triggered */
/* One question of an input_required result: its key, method and params. */
typedef struct { const char *key, *method, *params; } input;
#define SCHEMA(name, type) ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"" name "\":{\"type\":\"" type "\"}},\"required\":[\"" name "\"]}}"
#define ELICIT(key, message, name, type) {key, "elicitation/create", "{\"message\":\"" message "\"" SCHEMA(name, type)}
#define SAMPLE(key, text, max) {key, "sampling/createMessage", \
  "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"" text "\"}}],\"maxTokens\":" #max "}"}
#define NAME ELICIT("user_name", "What is your name?", "name", "string")
#define CAPITAL SAMPLE("capital_question", "What is the capital of France?", 100)
#define ROOTS {"client_roots", "roots/list", "{}"}
#define CONFIRM ELICIT("confirm", "Please confirm", "ok", "boolean")
#define GREETING SAMPLE("greeting", "Generate a greeting", 50)
#define STEP1 ELICIT("step1", "Step 1: What is your name?", "name", "string")
#define STEP2 ELICIT("step2", "Step 2: What is your favorite color?", "color", "string")
#define HELLO SAMPLE("sampling", "Say hello", 50)
#define STREAMED ELICIT("confirm", "Continue?", "ok", "boolean")
#define CONTEXT ELICIT("user_context", "What context should the prompt use?", "context", "string")
/* How many times each list "changed" (test_trigger_*), process-wide: over HTTP every 2026-07-28 request and every
 * subscriptions/listen stream is a session of its own, so the trigger's session tells the others through these. */
static uint64_t tools_changed, prompts_changed;
/* The changes each session announced, and its era once known (0 not yet, 1 legacy, 2 2026-07-28). */
static struct { uint64_t tools, prompts; int era; } seen[1 + HTTP_SESSIONS];
static char text[8192], field_buf[4096];
static void lists_seen(void) { seen[current].tools = tools_changed; seen[current].prompts = prompts_changed; }
void lists_reset(void) { lists_seen(); seen[current].era = 0; }
static void notify(uint32_t change, size_t *count) {
  if (picomcp_session_notify(sess, change, S(NULL), count) == PICOMCP_STATUS_QUEUE_FULL) flush(), picomcp_session_notify(sess, change, S(NULL), count);
}
uint64_t lists_catch_up(uint64_t now) {
  uint32_t version = 0; bool modern = false;
  if (seen[current].tools != tools_changed || seen[current].prompts != prompts_changed) {
    if (seen[current].tools != tools_changed) notify(PICOMCP_CHANGE_TOOLS_LIST_CHANGED, NULL);
    if (seen[current].prompts != prompts_changed) notify(PICOMCP_CHANGE_PROMPTS_LIST_CHANGED, NULL);
    lists_seen(); flush();
  }
  if (!http) return PICOMCP_NO_DEADLINE; /* stdio: one session, which announced its own changes */
  if (!seen[current].era && !picomcp_session_version(sess, &version) && version) { /* asked until negotiated */
    picomcp_version_has(version, PICOMCP_FEATURE_INPUT_REQUIRED, &modern);
    seen[current].era = modern ? 2 : 1;
  }
  return seen[current].era == 2 ? now + LIST_POLL_MS : PICOMCP_NO_DEADLINE;
}
/* One text block from a format; text that does not fit is an error result rather than cut. */
static void say(uint32_t id, size_t tool, bool is_error, const char *fmt, ...) {
  va_list ap; int n;
  va_start(ap, fmt); n = vsnprintf(text, sizeof text, fmt, ap); va_end(ap);
  if (n < 0 || (size_t)n >= sizeof text) tool_text(id, tool, S("The client's answer is too long for this demo"), false, true);
  else tool_text(id, tool, (picomcp_str){text, (size_t)n}, false, is_error);
}
/* Answers input_required with `inputs` (and `state`, sealed by the core); when the request did not declare a
 * capability they need, -32021 naming those capabilities. */
static void ask(uint32_t id, const input *inputs, size_t count, const char *state) {
  static char requests[4096], needed[128]; picomcp_writer w; size_t n = 0, i; picomcp_status st;
  picomcp_writer_init(&w, requests, sizeof requests); picomcp_writer_begin_object(&w);
  for (i = 0; i < count; i++) {
    picomcp_writer_key(&w, S(inputs[i].key)); picomcp_writer_begin_object(&w);
    picomcp_writer_key(&w, S("method")); picomcp_writer_string(&w, S(inputs[i].method));
    picomcp_writer_key(&w, S("params")); picomcp_writer_raw(&w, S(inputs[i].params)); picomcp_writer_end_object(&w);
  }
  picomcp_writer_end_object(&w);
  if ((st = picomcp_writer_finish(&w, &n))) { answer_failed(id, st); return; }
  if ((st = picomcp_session_respond_input_required(sess, id, (picomcp_str){requests, n}, S(state))) == PICOMCP_STATUS_QUEUE_FULL)
    flush(), st = picomcp_session_respond_input_required(sess, id, (picomcp_str){requests, n}, S(state));
  if (st == PICOMCP_STATUS_INPUT_NOT_ALLOWED) {
    picomcp_writer_init(&w, needed, sizeof needed); picomcp_writer_begin_object(&w);
    for (i = 0; i < count; i++) {
      const char *m = inputs[i].method;
      picomcp_writer_key(&w, S(!strcmp(m, "sampling/createMessage") ? "sampling" : !strcmp(m, "roots/list") ? "roots" : "elicitation"));
      picomcp_writer_begin_object(&w); picomcp_writer_end_object(&w);
    }
    picomcp_writer_end_object(&w); picomcp_writer_finish(&w, &n);
    ANSWER(id, picomcp_session_respond_missing_capability(sess, id, (picomcp_str){needed, n}));
  } else if (st && st != PICOMCP_STATUS_UNKNOWN_REQUEST) answer_failed(id, st);
}
/* The retry's inputResponses (`{}` in a first round); false after answering -32602 for one that is not an object. */
static bool responses(uint32_t id, picomcp_str params, picomcp_str *out) {
  picomcp_str r; uint32_t type;
  *out = S("{}");
  if (picomcp_json_get(params, S("inputResponses"), &r) || picomcp_json_kind(r, &type) || type == PICOMCP_JSON_TYPE_NULL) return true;
  if (type == PICOMCP_JSON_TYPE_OBJECT) { *out = r; return true; }
  ANSWER(id, picomcp_session_respond_error(sess, id, -32602, S("Invalid params: `inputResponses` must be an object"), S(NULL)));
  return false;
}
/* An answer counts when it is an object (a result of the method asked). */
static bool answer(picomcp_str answers, const input in, picomcp_str *out) {
  uint32_t type;
  return !picomcp_json_get(answers, S(in.key), out) && !picomcp_json_kind(*out, &type) && type == PICOMCP_JSON_TYPE_OBJECT;
}
static bool state_is(picomcp_str params, const char *want) {
  picomcp_str state; bool eq = false; /* the core verified a sealed state and gives it plain */
  return !picomcp_json_get(params, S("requestState"), &state) && !picomcp_json_string_eq(state, S(want), &eq) && eq;
}
/* `content.<name>` of an answer: a string decoded, or "unknown" (`raw`: any value as JSON, or "null"). */
static const char *field(picomcp_str a, const char *name, bool raw, int *len) {
  picomcp_str c, v; size_t n;
  if (picomcp_json_get(a, S("content"), &c) || picomcp_json_get(c, S(name), &v)) return *len = raw ? 4 : 7, raw ? "null" : "unknown";
  if (raw) return *len = (int)v.len, v.ptr;
  if (picomcp_json_string(v, field_buf, sizeof field_buf, &n)) return *len = 7, "unknown";
  return *len = (int)n, field_buf;
}
void mrtr_tool(uint32_t id, size_t tool, picomcp_str params) {
  static const input confirm[] = {CONFIRM}, all[] = {NAME, GREETING, ROOTS}, step1[] = {STEP1}, step2[] = {STEP2};
  static const input name[] = {NAME}, capital[] = {CAPITAL}, roots[] = {ROOTS}, hello[] = {HELLO}, streamed[] = {STREAMED};
  picomcp_request_info info; picomcp_str answers, a, v; input declared[2]; size_t n = 0; bool sent = false; const char *f; int len;
  if (tool == LOGGING_TOOL) { /* 2026-07-28: sent only when the request's _meta asked for info; legacy: as logging/setLevel allows */
    picomcp_status st = picomcp_session_log_for_text(sess, id, PICOMCP_LOG_LEVEL_INFO, S("picomcp-demo-c"), S("test_logging_tool was called"), &sent);
    if (st == PICOMCP_STATUS_QUEUE_FULL) flush(), picomcp_session_log_for_text(sess, id, PICOMCP_LOG_LEVEL_INFO, S("picomcp-demo-c"), S("test_logging_tool was called"), &sent);
    tool_text(id, tool, S(sent ? "Logged one info message" : "No log message: the request did not ask for info"), false, false);
    return;
  }
  if (tool == TRIGGER_TOOL_CHANGE || tool == TRIGGER_PROMPT_CHANGE) { /* our session announces it now, the others at their next look */
    if (tool == TRIGGER_TOOL_CHANGE) tools_changed++, notify(PICOMCP_CHANGE_TOOLS_LIST_CHANGED, &n);
    else prompts_changed++, notify(PICOMCP_CHANGE_PROMPTS_LIST_CHANGED, &n);
    lists_seen();
    say(id, tool, false, "List change announced (%lu notification(s) on this session)", (unsigned long)n);
    return;
  }
  if (picomcp_session_request_info(sess, id, &info) || !info.modern) {
    tool_text(id, tool, S("This fixture answers with input_required results: it needs protocol revision 2026-07-28"), false, true);
    return;
  }
  if (!responses(id, params, &answers)) return;
  switch (tool) {
  case IR_ELICITATION:
    if (answer(answers, name[0], &a)) f = field(a, "name", false, &len), say(id, tool, false, "Hello, %.*s!", len, f);
    else ask(id, name, 1, NULL);
    break;
  case IR_SAMPLING:
    if (answer(answers, capital[0], &a)) {
      if (picomcp_json_pointer(a, S("/content/text"), &v, NULL) || picomcp_json_string(v, field_buf, sizeof field_buf, &n)) n = 0;
      say(id, tool, false, "LLM response: %.*s", (int)n, field_buf);
    } else ask(id, capital, 1, NULL);
    break;
  case IR_LIST_ROOTS:
    if (!answer(answers, roots[0], &a)) ask(id, roots, 1, NULL);
    else if (picomcp_json_get(a, S("roots"), &v)) say(id, tool, false, "Client roots: null");
    else say(id, tool, false, "Client roots: %.*s", (int)v.len, v.ptr);
    break;
  case IR_REQUEST_STATE: case IR_TAMPERED_STATE:
    if (answer(answers, confirm[0], &a) && state_is(params, "confirm-v1"))
      f = field(a, "ok", true, &len), say(id, tool, false, "state-ok: confirmed ok=%.*s", len, f);
    else ask(id, confirm, 1, "confirm-v1");
    break;
  case IR_MULTIPLE_INPUTS:
    if (state_is(params, "multi-v1") && answer(answers, all[0], &a) && answer(answers, all[1], &a) && answer(answers, all[2], &a))
      say(id, tool, false, "state-ok: received all three inputs");
    else ask(id, all, 3, "multi-v1");
    break;
  case IR_MULTI_ROUND:
    if (state_is(params, "round-2") && answer(answers, step2[0], &a))
      f = field(a, "color", false, &len), say(id, tool, false, "Favorite color: %.*s", len, f);
    else if (state_is(params, "round-2") || (state_is(params, "round-1") && answer(answers, step1[0], &a))) ask(id, step2, 1, "round-2");
    else ask(id, step1, 1, "round-1");
    break;
  case IR_CAPABILITIES: /* only what this request declared (_meta clientCapabilities) */
    if (!picomcp_json_len(answers, &n) && n) { say(id, tool, false, "Received the declared inputs"); break; }
    n = 0;
    if (info.client_capabilities & PICOMCP_CAP_ELICITATION) declared[n++] = name[0];
    if (info.client_capabilities & PICOMCP_CAP_SAMPLING) declared[n++] = capital[0];
    if (n) ask(id, declared, n, NULL); else say(id, tool, false, "The client declared nothing to ask with");
    break;
  case MISSING_CAPABILITY: /* without sampling declared on the request the core refuses the question: ask answers -32021 */
    if (answer(answers, hello[0], &a)) say(id, tool, false, "The client declared sampling and answered");
    else ask(id, hello, 1, NULL);
    break;
  case STREAMING_ELICITATION:
    if (answer(answers, streamed[0], &a)) say(id, tool, false, "Elicitation answered");
    else ask(id, streamed, 1, NULL);
    break;
  default: tool_text(id, tool, S("Not an MRTR fixture"), false, true);
  }
}
/* test_input_required_result_prompt: in 2026-07-28, to a client that declared elicitation, the question first, then
 * a prompt with the answer; otherwise (legacy era, no elicitation) a prompt without context, so that the prompt
 * still works for every client that lists it. */
void mrtr_prompt(uint32_t id, size_t prompt, picomcp_str params) {
  static const input context[] = {CONTEXT};
  picomcp_request_info info; picomcp_prompt_message m; picomcp_str answers, a; const char *f; int len, n;
  memset(&m, 0, sizeof m); m.role = PICOMCP_PROMPT_ROLE_USER; m.content.kind = PICOMCP_CONTENT_KIND_TEXT;
  m.content.text = S("Use no particular context (asking for one needs protocol revision 2026-07-28 and a client with elicitation).");
  if (!picomcp_session_request_info(sess, id, &info) && info.modern && (info.client_capabilities & PICOMCP_CAP_ELICITATION)) {
    if (!responses(id, params, &answers)) return;
    if (!answer(answers, context[0], &a)) { ask(id, context, 1, NULL); return; }
    f = field(a, "context", false, &len);
    n = snprintf(text, sizeof text, "Use this context: %.*s", len, f);
    m.content.text = (picomcp_str){text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1};
  }
  ANSWER(id, picomcp_server_respond_prompt(&server, sess, id, prompt, &m, 1));
}
/* The requestState sealing key: PICOMCP_STATE_KEY (32 bytes as 64 hex digits; processes behind one load balancer
 * must share it), else 32 bytes from /dev/urandom (a state sealed by another process then does not verify). */
const char *state_key(uint8_t key[32]) {
  static const char *bad = "PICOMCP_STATE_KEY must be 64 hex digits (32 bytes)";
  const char *hex = getenv("PICOMCP_STATE_KEY"); size_t len, i; ssize_t n; int fd;
  if (hex) {
    while (isspace((unsigned char)*hex)) hex++;
    for (len = strlen(hex); len && isspace((unsigned char)hex[len - 1]); len--) {}
    if (len != 64) return bad;
    for (i = 0; i < 64; i++) {
      int c = tolower((unsigned char)hex[i]), d = isdigit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return bad;
      key[i / 2] = (uint8_t)(i % 2 ? key[i / 2] | d : d << 4);
    }
    return NULL;
  }
  /* open(2) and read(2) rather than stdio, whose FILE would allocate and fill a 4 KiB buffer at every start. */
  if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) < 0) return "cannot open /dev/urandom for the state key";
  for (len = 0; len < 32 && ((n = read(fd, key + len, 32 - len)) > 0 || (n < 0 && errno == EINTR));) len += n > 0 ? (size_t)n : 0;
  close(fd);
  return len == 32 ? NULL : "cannot read /dev/urandom for the state key";
}
