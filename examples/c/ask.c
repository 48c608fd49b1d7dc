/* The tools that ask the client something, as the Rust demo's ask.rs: test_sampling, test_elicitation,
 * test_elicitation_sep1034_defaults and test_elicitation_sep1330_enums.
 *
 * Legacy era: a request to the client (picomcp_session_send_request), matched back to the waiting tool call through
 * a small table per session (ASKS entries, the session's outbound slots); the client's answer is a response event
 * (drain_events calls ask_answered). Over HTTP the endpoint puts our request on the tool call's own SSE stream
 * (picomcp_endpoint_collect routes a server request to the POST being served) and the answer comes in a POST of its
 * own, delivered to the same session: http_loop.c needs nothing more. Cancelling the tool call cancels the question.
 * 2026-07-28: the server may not send requests, so the question is an input_required result and the answer arrives
 * with the retry's inputResponses; nothing is kept between the rounds (-32021 when the request did not declare the
 * capability the question needs). No malloc: a question and an answer's text are written into static buffers. */
#include <stdio.h>
#include <string.h>
#include "demo.h"
enum { Q_SAMPLING, Q_ELICITATION, Q_FORM }; /* Q_FORM: the SEP-1034 and SEP-1330 tools ("Elicitation completed: ...") */
typedef struct { bool used; int kind; uint32_t out, id; size_t tool; } question;
static question asks[1 + HTTP_SESSIONS][ASKS]; /* per session, like picomcp_demo.c's application state */
static char buf[65536];                          /* a question's params, then an answer's text */
#define PROP(name, type, desc) "\"" name "\":{\"type\":\"" type "\",\"description\":\"" desc "\""
#define ELICIT_BASIC "{\"type\":\"object\",\"properties\":{" PROP("username", "string", "User's response") "}," \
  PROP("email", "string", "User's email address") "}},\"required\":[\"username\",\"email\"]}"
#define ELICIT_DEFAULTS "{\"type\":\"object\",\"properties\":{" PROP("name", "string", "User name") ",\"default\":\"John Doe\"}," \
  PROP("age", "integer", "User age") ",\"default\":30}," PROP("score", "number", "User score") ",\"default\":95.5}," \
  PROP("status", "string", "User status") ",\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"}," \
  PROP("verified", "boolean", "Verification status") ",\"default\":true}}}"
#define OPTIONS(a, b, c) "[{\"const\":\"value1\",\"title\":\"" a "\"},{\"const\":\"value2\",\"title\":\"" b "\"},{\"const\":\"value3\",\"title\":\"" c "\"}]"
#define UNTITLED_SINGLE PROP("untitledSingle", "string", "Untitled single-select") ",\"enum\":[\"option1\",\"option2\",\"option3\"]}"
#define LEGACY_ENUM PROP("legacyEnum", "string", "Legacy titled enum") ",\"enum\":[\"opt1\",\"opt2\",\"opt3\"]," \
  "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]}"
#define ELICIT_ENUMS "{\"type\":\"object\",\"properties\":{" UNTITLED_SINGLE "," \
  PROP("titledSingle", "string", "Titled single-select") ",\"oneOf\":" OPTIONS("First Option", "Second Option", "Third Option") "}," \
  LEGACY_ENUM "," PROP("untitledMulti", "array", "Untitled multi-select") ",\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}}," \
  PROP("titledMulti", "array", "Titled multi-select") ",\"items\":{\"anyOf\":" OPTIONS("First Choice", "Second Choice", "Third Choice") "}}}}"
/* The same question for 2025-06-18, whose requestedSchema must be flat (multi-select arrived in 2025-11-25). */
#define ELICIT_ENUMS_FLAT "{\"type\":\"object\",\"properties\":{" UNTITLED_SINGLE "," LEGACY_ENUM "}}"
void ask_reset(void) { memset(asks[current], 0, sizeof asks[current]); }
static int kind_of(size_t tool) { return tool == SAMPLING ? Q_SAMPLING : tool == ELICITATION ? Q_ELICITATION : Q_FORM; }
/* The params of `tool`'s question (sampling/createMessage or elicitation/create). */
static void write_params(picomcp_writer *w, size_t tool, picomcp_str args) {
  picomcp_str v; uint32_t version = 0; bool enums = false;
  if (tool == SAMPLING) { /* the layer checked the arguments against the inputSchema: `prompt` is a string */
    if (picomcp_json_get(args, S("prompt"), &v)) v = S("\"\"");
    picomcp_writer_begin_object(w); picomcp_writer_key(w, S("messages")); picomcp_writer_begin_array(w);
    picomcp_writer_begin_object(w); picomcp_writer_key(w, S("role")); picomcp_writer_string(w, S("user"));
    picomcp_writer_key(w, S("content")); picomcp_writer_begin_object(w); picomcp_writer_key(w, S("type")); picomcp_writer_string(w, S("text"));
    picomcp_writer_key(w, S("text")); picomcp_writer_raw(w, v); picomcp_writer_end_object(w); picomcp_writer_end_object(w);
    picomcp_writer_end_array(w); picomcp_writer_key(w, S("maxTokens")); picomcp_writer_int(w, 100); picomcp_writer_end_object(w);
    return;
  }
  picomcp_writer_begin_object(w); picomcp_writer_key(w, S("message"));
  if (tool == ELICITATION) {
    if (picomcp_json_get(args, S("message"), &v)) v = S("\"\"");
    picomcp_writer_raw(w, v); picomcp_writer_key(w, S("requestedSchema")); picomcp_writer_raw(w, S(ELICIT_BASIC));
  } else if (tool == ELICITATION_DEFAULTS) {
    picomcp_writer_string(w, S("Please review and update the form fields with defaults"));
    picomcp_writer_key(w, S("requestedSchema")); picomcp_writer_raw(w, S(ELICIT_DEFAULTS));
  } else {
    picomcp_session_version(sess, &version); picomcp_version_has(version, PICOMCP_FEATURE_ELICITATION_ENUMS, &enums);
    picomcp_writer_string(w, S("Please select options from the enum fields"));
    picomcp_writer_key(w, S("requestedSchema")); picomcp_writer_raw(w, S(enums ? ELICIT_ENUMS : ELICIT_ENUMS_FLAT));
  }
  picomcp_writer_end_object(w);
}
/* The text of a content block, when it is a text block. */
static bool text_of(picomcp_str block, picomcp_str *text) {
  picomcp_str type; bool is_text = false;
  return !picomcp_json_get(block, S("type"), &type) && !picomcp_json_string_eq(type, S("text"), &is_text) && is_text &&
         !picomcp_json_get(block, S("text"), text);
}
/* The text of the first text block of a sampling result's `content` (one block, or an array from 2025-11-25). */
static bool first_text(picomcp_str content, picomcp_str *text) {
  picomcp_str block; uint32_t type; size_t i;
  if (!picomcp_json_kind(content, &type) && type == PICOMCP_JSON_TYPE_OBJECT) return text_of(content, text);
  for (i = 0; !picomcp_json_at(content, i, &block); i++)
    if (text_of(block, text)) return true;
  return false;
}
/* Answers tool call `id` with what the client answered (`result`), or with why it did not (`error`). */
static void respond_answer(uint32_t id, size_t tool, int kind, picomcp_str result, const char *error) {
  static char action[256]; picomcp_str content, t; size_t n = 0, len; int w; bool is_error = false;
  if (error) {
    w = snprintf(buf, sizeof buf, "%s failed: %s", kind == Q_SAMPLING ? "Sampling" : "Elicitation", error); is_error = true;
  } else if (kind == Q_SAMPLING) {
    if (picomcp_json_get(result, S("content"), &content)) content = S("null");
    w = snprintf(buf, sizeof buf, "LLM response: "); /* then the text, decoded in place, or else the content as JSON */
    if (first_text(content, &t) && !picomcp_json_string(t, buf + w, sizeof buf - (size_t)w, &len)) w += (int)len;
    else w = snprintf(buf, sizeof buf, "LLM response: %.*s", (int)content.len, content.ptr);
  } else { /* action decoded (or unknown), content as JSON */
    if (picomcp_json_get(result, S("action"), &t) || picomcp_json_string(t, action, sizeof action, &len)) strcpy(action, "unknown");
    if (picomcp_json_get(result, S("content"), &content)) content = S("{}");
    w = snprintf(buf, sizeof buf, "%s: action=%s, content=%.*s", kind == Q_ELICITATION ? "User response" : "Elicitation completed",
                 action, (int)content.len, content.ptr);
  }
  if (w < 0 || (size_t)w >= sizeof buf) { tool_text(id, tool, S("The client's answer is too long for this demo"), false, true); return; }
  n = (size_t)w;
  tool_text(id, tool, (picomcp_str){buf, n}, false, is_error);
}
/* 2026-07-28: the question as an input_required result, or the answer when the retry carries it. */
static void input_required(uint32_t id, size_t tool, int kind, picomcp_str params, picomcp_str args) {
  const char *key = kind == Q_SAMPLING ? "sampling" : "elicitation"; picomcp_str r, a; picomcp_writer w; uint32_t type; size_t n = 0;
  picomcp_status st;
  if (!picomcp_json_get(params, S("inputResponses"), &r) && !picomcp_json_kind(r, &type) && type != PICOMCP_JSON_TYPE_NULL) {
    if (type != PICOMCP_JSON_TYPE_OBJECT) {
      ANSWER(id, picomcp_session_respond_error(sess, id, -32602, S("Invalid params: `inputResponses` must be an object"), S(NULL)));
      return;
    }
    if (!picomcp_json_get(r, S(key), &a) && !picomcp_json_kind(a, &type) && type == PICOMCP_JSON_TYPE_OBJECT) {
      respond_answer(id, tool, kind, a, NULL);
      return;
    }
  }
  /* First round, or the answer is missing: ask (again). */
  picomcp_writer_init(&w, buf, sizeof buf); picomcp_writer_begin_object(&w); picomcp_writer_key(&w, S(key));
  picomcp_writer_begin_object(&w); picomcp_writer_key(&w, S("method"));
  picomcp_writer_string(&w, S(kind == Q_SAMPLING ? "sampling/createMessage" : "elicitation/create"));
  picomcp_writer_key(&w, S("params")); write_params(&w, tool, args); picomcp_writer_end_object(&w); picomcp_writer_end_object(&w);
  if (picomcp_writer_finish(&w, &n)) { tool_text(id, tool, S("The question is too long for this demo"), false, true); return; }
  if ((st = picomcp_session_respond_input_required(sess, id, (picomcp_str){buf, n}, S(NULL))) == PICOMCP_STATUS_QUEUE_FULL)
    flush(), st = picomcp_session_respond_input_required(sess, id, (picomcp_str){buf, n}, S(NULL));
  if (st == PICOMCP_STATUS_INPUT_NOT_ALLOWED) /* the request did not declare the capability the question needs */
    ANSWER(id, picomcp_session_respond_missing_capability(sess, id, S(kind == Q_SAMPLING ? "{\"sampling\":{}}" : "{\"elicitation\":{}}")));
  else if (st && st != PICOMCP_STATUS_UNKNOWN_REQUEST) answer_failed(id, st);
}
void ask_question(uint32_t id, size_t tool, picomcp_str params, picomcp_str args) {
  static char why[256]; picomcp_request_info info; picomcp_request_options opts; picomcp_writer w; picomcp_status st;
  const char *method; int kind = kind_of(tool), q; size_t n = 0; uint32_t out = 0;
  if (!picomcp_session_request_info(sess, id, &info) && info.modern) { input_required(id, tool, kind, params, args); return; }
  for (q = 0; q < ASKS && asks[current][q].used; q++) {}
  if (q == ASKS) { tool_text(id, tool, S("Too many requests to the client in flight"), false, true); return; }
  picomcp_writer_init(&w, buf, sizeof buf); write_params(&w, tool, args);
  if (picomcp_writer_finish(&w, &n)) { tool_text(id, tool, S("The question is too long for this demo"), false, true); return; }
  memset(&opts, 0, sizeof opts);
  opts.timeout_ms = kind == Q_SAMPLING ? 60000 : 600000; /* a person answers elicitations: give them longer than a model */
  method = kind == Q_SAMPLING ? "sampling/createMessage" : "elicitation/create";
  if ((st = picomcp_session_send_request(sess, now_ms(), S(method), (picomcp_str){buf, n}, &opts, &out)) == PICOMCP_STATUS_QUEUE_FULL)
    flush(), st = picomcp_session_send_request(sess, now_ms(), S(method), (picomcp_str){buf, n}, &opts, &out);
  if (st) { /* e.g. the client did not declare the capability (NOT_NEGOTIATED) */
    n = (size_t)snprintf(why, sizeof why, "Cannot ask the client (%s): ", method);
    picomcp_status_describe(st, why + n, sizeof why - n);
    tool_text(id, tool, S(why), false, true);
    return;
  }
  asks[current][q].used = true; asks[current][q].kind = kind; asks[current][q].out = out; asks[current][q].id = id; asks[current][q].tool = tool;
}
bool ask_answered(const picomcp_event *e) {
  static char why[512]; question *a = asks[current]; int q;
  for (q = 0; q < ASKS && !(a[q].used && a[q].out == e->id); q++) {}
  if (q == ASKS) return false;
  a[q].used = false;
  if (e->kind == PICOMCP_EVENT_KIND_RESPONSE) respond_answer(a[q].id, a[q].tool, a[q].kind, e->json, NULL);
  else if (e->kind == PICOMCP_EVENT_KIND_TIMED_OUT) respond_answer(a[q].id, a[q].tool, a[q].kind, S(NULL), "the client did not answer in time");
  else {
    snprintf(why, sizeof why, "%.*s (error %lld)", (int)(e->text.len < 400 ? e->text.len : 400), e->text.ptr, (long long)e->code);
    respond_answer(a[q].id, a[q].tool, a[q].kind, S(NULL), why);
  }
  return true;
}
void ask_forget(uint32_t id) {
  question *a = asks[current]; int q;
  for (q = 0; q < ASKS; q++)
    if (a[q].used && a[q].id == id) picomcp_session_cancel(sess, a[q].out, S("the tool call was cancelled")), a[q].used = false;
}
