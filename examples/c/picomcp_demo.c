/* picomcp-demo-c: the C demo server over stdio (the demo contract) on picomcp's server layer: C tables of
 * tools, resources and prompts; the layer lists them, checks every call and shapes results for the revision,
 * so nothing here parses JSON-RPC or checks arguments. The tools that ask the client are in ask.c and mrtr.c.
 * Loop: read(2) -> handle_bytes -> poll_served -> write(2); poll(2) waits for input or the next timer (sleep's
 * progress and answer, the logging and progress fixtures, the watched resource). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "demo.h"
#define SLOTS 64 /* requests in flight, and so sleep timers */
#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]}"
#define INT(lo, hi) "{\"type\":\"integer\",\"minimum\":" #lo ",\"maximum\":" #hi "}"
enum { SLEEP_JOB, LOGGING_JOB, PROGRESS_JOB }; /* what a timer does */
#define NO_ARGS "{\"type\":\"object\",\"additionalProperties\":false}"
/* A 1x1 red PNG, and one millisecond of silence as WAV (8-bit mono PCM at 8 kHz). */
#define PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"
#define WAV "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
static const picomcp_tool TOOLS[] = {
  {.name = "echo", .description = "Returns its text", .input_schema = OBJ("\"text\":{\"type\":\"string\"}", "\"text\"")},
  {.name = "add", .description = "Adds two numbers", .input_schema = OBJ("\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}", "\"a\",\"b\""),
   .output_schema = OBJ("\"sum\":{\"type\":\"number\"}", "\"sum\"")},
  {.name = "sleep", .description = "Waits ms milliseconds, with progress and cancellation",
   .input_schema = OBJ("\"ms\":" INT(0, 60000) ",\"steps\":" INT(0, 10000), "\"ms\""),
   .scopes = "mcp:admin"}, /* under --auth-issuer: hidden from and refused to tokens without it (403 step-up) */
  {.name = "test_simple_text", .description = "Returns simple text content", .input_schema = OBJ("", "")},
  {.name = "test_error_handling", .description = "Always returns a tool error", .input_schema = OBJ("", "")},
  /* The rest of the conformance fixture (../../tests/conformance, /work/shared/DEMO_SERVER.md). */
  {.name = "test_image_content", .description = "Returns a 1x1 PNG image block", .input_schema = NO_ARGS},
  {.name = "test_audio_content", .description = "Returns a short WAV audio block", .input_schema = NO_ARGS},
  {.name = "test_embedded_resource", .description = "Returns an embedded text resource", .input_schema = NO_ARGS},
  {.name = "test_multiple_content_types", .description = "Returns text, image and embedded resource blocks", .input_schema = NO_ARGS},
  {.name = "test_tool_with_logging", .description = "Sends three info log messages about 50 ms apart", .input_schema = NO_ARGS},
  {.name = "test_tool_with_progress", .description = "Reports progress 0, 50 and 100 of 100, about 50 ms apart", .input_schema = NO_ARGS},
  {.name = "json_schema_2020_12_tool", .description = "JSON Schema 2020-12 features in its input schema; returns its arguments",
   .input_schema = "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\",\"$defs\":{\"address\":{\"$anchor\":"
     "\"addressDef\",\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
     "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},\"contactMethod\":{\"type\":\"string\","
     "\"enum\":[\"phone\",\"email\"]},\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},\"allOf\":[{\"anyOf\":"
     "[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},"
     "\"required\":[\"contactMethod\"]},\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},\"additionalProperties\":false}"},
  /* echo whose `text` also travels as the header Mcp-Param-Text of 2026-07-28 HTTP calls: the endpoint checks it
   * (picomcp_endpoint_config.server), from the x-mcp-header annotation. */
  {.name = "echo_header", .description = "Returns text; over Streamable HTTP (2026-07-28) text is mirrored in the Mcp-Param-Text header",
   .input_schema = OBJ("\"text\":{\"type\":\"string\",\"x-mcp-header\":\"Text\"}", "\"text\"")},
  /* Questions for the client (ask.c): a request to it in the legacy era, an input_required result in 2026-07-28. */
  {.name = "test_sampling", .description = "Asks the client's LLM to answer `prompt` (sampling/createMessage) and returns the answer",
   .input_schema = OBJ("\"prompt\":{\"type\":\"string\",\"description\":\"The prompt to send to the LLM\"}", "\"prompt\"")},
  {.name = "test_elicitation", .description = "Asks the user for a username and an email address (elicitation/create) and returns the answer",
   .input_schema = OBJ("\"message\":{\"type\":\"string\",\"description\":\"The message to show the user\"}", "\"message\"")},
  {.name = "test_elicitation_sep1034_defaults", .description = "Elicits a form whose fields all carry default values (SEP-1034)", .input_schema = NO_ARGS},
  {.name = "test_elicitation_sep1330_enums", .description = "Elicits a form with every enum variant: untitled, titled, legacy, multi-select (SEP-1330)",
   .input_schema = NO_ARGS},
  /* The 0.2.0 suite's diagnostic fixtures (mrtr.c): 2026-07-28 input_required results, -32021, logLevel, list changes. */
  {.name = "test_input_required_result_elicitation", .description = "2026-07-28: asks the user's name (input_required, elicitation), then says hello",
   .input_schema = NO_ARGS},
  {.name = "test_input_required_result_sampling", .input_schema = NO_ARGS,
   .description = "2026-07-28: asks the client's LLM a question (input_required, sampling), then returns the answer"},
  {.name = "test_input_required_result_list_roots", .input_schema = NO_ARGS,
   .description = "2026-07-28: asks for the client's roots (input_required, roots/list), then lists them"},
  {.name = "test_input_required_result_request_state", .input_schema = NO_ARGS,
   .description = "2026-07-28: asks for a confirmation with a requestState, then checks the echoed state"},
  {.name = "test_input_required_result_multiple_inputs", .input_schema = NO_ARGS,
   .description = "2026-07-28: asks for an elicitation, a sampling and the roots at once"},
  {.name = "test_input_required_result_multi_round", .description = "2026-07-28: asks two questions in two rounds, carried by requestState",
   .input_schema = NO_ARGS},
  {.name = "test_input_required_result_tampered_state", .input_schema = NO_ARGS,
   .description = "2026-07-28: answers with a sealed requestState; a tampered one is refused with -32602"},
  {.name = "test_input_required_result_capabilities", .description = "2026-07-28: asks only with the capabilities the request declared",
   .input_schema = NO_ARGS},
  {.name = "test_missing_capability", .description = "2026-07-28: needs the client's sampling; without it declared, -32021", .input_schema = NO_ARGS},
  {.name = "test_streaming_elicitation", .input_schema = NO_ARGS,
   .description = "2026-07-28: asks for a confirmation on the request's own stream, as an input_required result"},
  {.name = "test_logging_tool", .description = "Sends one info log message, only to a request that asked for that level", .input_schema = NO_ARGS},
  {.name = "test_trigger_tool_change", .description = "Announces that the tool list changed (notifications/tools/list_changed)", .input_schema = NO_ARGS},
  {.name = "test_trigger_prompt_change", .description = "Announces that the prompt list changed (notifications/prompts/list_changed)",
   .input_schema = NO_ARGS}};
static const picomcp_resource RESOURCES[] = {
  {.uri = "test://static-text", .name = "static-text", .description = "A static text resource", .mime_type = "text/plain"},
  {.uri = "test://static-binary", .name = "static-binary", .description = "A static binary resource (a 1x1 PNG image)", .mime_type = "image/png"},
  {.uri = "test://watched-resource", .name = "watched-resource", .description = "A resource that can be subscribed to", .mime_type = "text/plain"}};
static const picomcp_resource_template TEMPLATES[] = {{.uri_template = "test://template/{id}/data", .name = "template",
  .description = "test://template/{id}/data returns JSON data for that id", .mime_type = "application/json", .completable = true}};
static const picomcp_prompt_argument ARGS[] = {{.name = "arg1", .description = "First argument", .required = true, .completable = true},
                                               {.name = "arg2", .description = "Second argument", .required = true, .completable = true}};
static const picomcp_prompt_argument URI_ARG[] = {{.name = "resourceUri", .description = "URI of the resource to embed", .required = true, .completable = true}};
static const picomcp_prompt PROMPTS[] = {{.name = "test_simple_prompt", .description = "A simple prompt"},
  {.name = "test_prompt_with_arguments", .description = "A prompt with arguments", .arguments = ARGS, .argument_count = 2},
  {.name = "test_prompt_with_embedded_resource", .description = "A prompt that embeds a resource", .arguments = URI_ARG, .argument_count = 1},
  {.name = "test_prompt_with_image", .description = "A prompt with image content"},
  {.name = "test_input_required_result_prompt", /* mrtr.c */
   .description = "2026-07-28: asks what context to use (input_required, elicitation), then returns a prompt with it"}};
#define COUNT(a) (sizeof (a) / sizeof *(a))
static const picomcp_catalog CATALOG = {TOOLS, COUNT(TOOLS), RESOURCES, COUNT(RESOURCES), TEMPLATES, COUNT(TEMPLATES), PROMPTS, COUNT(PROMPTS)};
/* A running tool: sleep (progress `steps` times over `ms`, then "slept"), or the logging or progress fixture (`done` of
 * three messages sent, one every FIXTURE_STEP_MS, then the answer). */
#define FIXTURE_STEP_MS 50
typedef struct { int used, job; uint32_t id; uint64_t start, due, ms; int64_t steps, done; } timer;
picomcp_session *sess; /* the session being served (over HTTP: the one of the slot being served) */
picomcp_server server;
typedef struct { timer t[SLOTS]; int busy; uint64_t next_watch; } app; /* a session's state; busy: timers in use (none: nothing to scan) */
static app apps[1 + HTTP_SESSIONS], *cur = apps; int http; size_t current; /* apps[0]: stdio; apps[1 + slot]: HTTP */
void demo_select(size_t slot, picomcp_session *s, bool fresh) {
  sess = s; current = 1 + slot; cur = &apps[current];
  if (fresh) memset(cur, 0, sizeof *cur), ask_reset(), lists_reset();
}
static int diag_level = 1; /* 0 error, 1 warn, 2 info, 3 debug */
static const char *LEVELS[] = {"error", "warn", "info", "debug"};
#define diag(level, ...) do { if ((level) <= diag_level) { fprintf(stderr, "picomcp-demo-c: %s: ", LEVELS[level]); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
static const char *describe(picomcp_status st) { static char m[160]; picomcp_status_describe(st, m, sizeof m); return m; }
uint64_t now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u; }
/* Writes everything the session wants to send, straight from its queue. */
void flush(void) {
  picomcp_str p;
  if (http) { http_flush(); return; } /* the endpoint takes the output */
  while (picomcp_session_pending_transmit(sess, &p) == PICOMCP_STATUS_OK && p.len > 0) {
    ssize_t n = write(STDOUT_FILENO, p.ptr, p.len);
    if (n < 0 && errno == EINTR) continue; else if (n <= 0) { diag(0, "cannot write stdout: %s", strerror(errno)); exit(1); }
    picomcp_session_advance_transmit(sess, (size_t)n);
  }
}
void answer_failed(uint32_t id, picomcp_status st) {
  diag(1, "cannot answer: %s", describe(st));
  picomcp_session_respond_error(sess, id, -32603, S("Internal error: the result does not fit"), S(NULL));
}
/* One text block; `json`: the text is a JSON string value (the request's own), copied byte for byte. */
void tool_text(uint32_t id, size_t tool, picomcp_str text, bool json, bool is_error) {
  picomcp_content block = {.kind = PICOMCP_CONTENT_KIND_TEXT}; picomcp_tool_result r = {.content_count = 1};
  block.text = text; block.text_is_json = json; r.content = &block; r.is_error = is_error;
  ANSWER(id, picomcp_server_respond_tool(&server, sess, id, tool, &r, NULL));
}
/* A number from the arguments (the layer checked them against the inputSchema). */
static double number(const picomcp_call *c, const char *name, double d) {
  picomcp_str v;
  if (!picomcp_json_get(c->arguments, S(name), &v)) picomcp_json_number(v, &d); /* unchanged if not a number */
  return d;
}
/* Answers with `n` content blocks. */
static void tool_blocks(uint32_t id, size_t tool, const picomcp_content *blocks, size_t n) {
  picomcp_tool_result r = {.content = blocks, .content_count = n};
  ANSWER(id, picomcp_server_respond_tool(&server, sess, id, tool, &r, NULL));
}
static picomcp_content image_block(void) {
  picomcp_content b = {.kind = PICOMCP_CONTENT_KIND_IMAGE}; b.data = S(PNG); b.mime_type = S("image/png"); return b;
}
static picomcp_content resource_block(const char *uri, const char *mime, const char *text) {
  picomcp_content b = {.kind = PICOMCP_CONTENT_KIND_RESOURCE}; b.uri = S(uri); b.mime_type = S(mime); b.text = S(text); return b;
}
/* Starts a timer (sleep, or a fixture that sends its three messages over time); false when all are in use. */
static bool start_timer(uint32_t id, int job, uint64_t ms, int64_t steps) {
  int t;
  for (t = 0; t < SLOTS && cur->t[t].used; t++) {}
  if (t == SLOTS) return false;
  cur->t[t].used = 1; cur->busy++; cur->t[t].id = id; cur->t[t].job = job; cur->t[t].start = now_ms(); cur->t[t].done = 0;
  cur->t[t].ms = ms; cur->t[t].steps = steps;
  cur->t[t].due = cur->t[t].start + (job == SLEEP_JOB ? ms / (uint64_t)(steps + 1) : 0);
  return true;
}
/* A checked tools/call; `params`: the request's (ask.c and mrtr.c read a retry's inputResponses there). */
static void call_tool(uint32_t id, const picomcp_call *c, picomcp_str params) {
  picomcp_tool_result r = {.content = NULL}; picomcp_request_info info; picomcp_writer w; picomcp_str text;
  picomcp_content blocks[3] = {{.kind = PICOMCP_CONTENT_KIND_TEXT}}; static char received[8192];
  char sum[64]; size_t n = 0; double x; int64_t steps; bool audio = false; uint32_t version = 0;
  switch (c->index) {
  case ECHO: case ECHO_HEADER: picomcp_session_argument(sess, S("text"), &text); tool_text(id, c->index, text, true, false); break;
  case ADD: /* {"sum":A+B}: the layer writes it as structuredContent and as a text block */
    x = number(c, "a", 0) + number(c, "b", 0); /* read here only: every other tool skips the two lookups */
    if (x - x != 0) { /* infinite */ tool_text(id, ADD, S("The sum is too large to represent"), false, true); break; }
    picomcp_writer_init(&w, sum, sizeof sum); picomcp_writer_begin_object(&w); picomcp_writer_key(&w, S("sum"));
    picomcp_writer_double(&w, x); picomcp_writer_end_object(&w); picomcp_writer_finish(&w, &n); r.structured.ptr = sum; r.structured.len = n;
    ANSWER(id, picomcp_server_respond_tool(&server, sess, id, ADD, &r, NULL));
    break;
  case SLEEP: /* step k of n at k/(n+1) of the wait, so no progress arrives on top of the answer */
    steps = picomcp_session_request_info(sess, id, &info) || !info.has_progress_token ? 0 : (int64_t)number(c, "steps", 1);
    if (!start_timer(id, SLEEP_JOB, (uint64_t)number(c, "ms", 0), steps)) tool_text(id, SLEEP, S("Too many requests in progress"), false, true);
    break;
  case SIMPLE_TEXT: tool_text(id, SIMPLE_TEXT, S("This is a simple text response for testing."), false, false); break;
  case IMAGE: blocks[0] = image_block(); tool_blocks(id, IMAGE, blocks, 1); break;
  case AUDIO: /* audio blocks exist from 2025-03-26 on */
    picomcp_session_version(sess, &version); picomcp_version_has(version, PICOMCP_FEATURE_AUDIO_CONTENT, &audio);
    if (!audio) { tool_text(id, AUDIO, S("Audio content needs protocol revision 2025-03-26 or later"), false, true); break; }
    blocks[0].kind = PICOMCP_CONTENT_KIND_AUDIO; blocks[0].data = S(WAV); blocks[0].mime_type = S("audio/wav"); tool_blocks(id, AUDIO, blocks, 1);
    break;
  case EMBEDDED:
    blocks[0] = resource_block("test://embedded-resource", "text/plain", "This is an embedded resource content.");
    tool_blocks(id, EMBEDDED, blocks, 1);
    break;
  case MIXED:
    blocks[0].text = S("Multiple content types test:"); blocks[1] = image_block();
    blocks[2] = resource_block("test://mixed-content-resource", "application/json", "{\"test\":\"data\",\"value\":123}");
    tool_blocks(id, MIXED, blocks, 3);
    break;
  case WITH_LOGGING: case WITH_PROGRESS:
    if (!start_timer(id, c->index == WITH_LOGGING ? LOGGING_JOB : PROGRESS_JOB, 0, 3))
      tool_text(id, c->index, S("Too many requests in progress"), false, true);
    break;
  case SCHEMA_2020:
    snprintf(received, sizeof received, "Received arguments: %.*s", (int)c->arguments.len, c->arguments.ptr);
    tool_text(id, SCHEMA_2020, S(received), false, false);
    break;
  case SAMPLING: case ELICITATION: case ELICITATION_DEFAULTS: case ELICITATION_ENUMS: ask_question(id, c->index, params, c->arguments); break;
  case ERROR_HANDLING: tool_text(id, ERROR_HANDLING, S("This tool intentionally returns an error for testing"), false, true); break;
  default: mrtr_tool(id, c->index, params);
  }
}
static const char *const LOG_MESSAGES[] = {"Tool execution started", "Tool processing data", "Tool execution completed"};
static const double PROGRESS_VALUES[] = {0, 50, 100};
/* One step of the logging or progress fixture: the next message, or the answer after the third. */
static void fixture_step(timer *tm, uint64_t now) {
  bool sent; picomcp_status st;
  if (tm->done < 3) {
    if (tm->job == LOGGING_JOB) {
      st = picomcp_session_log_for_text(sess, tm->id, PICOMCP_LOG_LEVEL_INFO, S("picomcp-demo-c"), S(LOG_MESSAGES[tm->done]), &sent);
      if (st == PICOMCP_STATUS_QUEUE_FULL) flush(), picomcp_session_log_for_text(sess, tm->id, PICOMCP_LOG_LEVEL_INFO, S("picomcp-demo-c"), S(LOG_MESSAGES[tm->done]), &sent);
    } else if (picomcp_session_progress(sess, tm->id, PROGRESS_VALUES[tm->done], 100, S(NULL)) == PICOMCP_STATUS_QUEUE_FULL) {
      flush(), picomcp_session_progress(sess, tm->id, PROGRESS_VALUES[tm->done], 100, S(NULL)); /* without a token: nothing is sent */
    }
    tm->done++; tm->due = now + (tm->done < 3 ? FIXTURE_STEP_MS : 0);
    return;
  }
  tool_text(tm->id, tm->job == LOGGING_JOB ? WITH_LOGGING : WITH_PROGRESS,
            tm->job == LOGGING_JOB ? S("Tool with logging executed successfully") : S("Tool with progress executed successfully"), false, false);
  tm->used = 0; cur->busy--;
}
/* Sends due progress notifications, log messages and answers; returns when the next timer is due. */
uint64_t run_timers(uint64_t now) {
  uint64_t next = PICOMCP_NO_DEADLINE; int t;
  for (t = 0; cur->busy && t < SLOTS; t++) { /* no tool running (the common case): nothing to scan */
    timer *tm = &cur->t[t];
    while (tm->used && tm->due <= now) {
      if (tm->job != SLEEP_JOB) fixture_step(tm, now);
      else if (tm->done < tm->steps) {
        tm->done++;
        if (picomcp_session_progress(sess, tm->id, (double)tm->done, (double)tm->steps, S(NULL)) == PICOMCP_STATUS_QUEUE_FULL)
          flush(), picomcp_session_progress(sess, tm->id, (double)tm->done, (double)tm->steps, S(NULL));
        tm->due = tm->start + (tm->done < tm->steps ? tm->ms * (uint64_t)(tm->done + 1) / (uint64_t)(tm->steps + 1) : tm->ms);
      } else {
        picomcp_session_log_for_text(sess, tm->id, PICOMCP_LOG_LEVEL_INFO, S("sleep"), S("slept"), NULL);
        tool_text(tm->id, SLEEP, S("slept"), false, false); tm->used = 0; cur->busy--;
      }
    }
    if (tm->used && tm->due < next) next = tm->due;
  }
  return next;
}
#define WATCH_MS 3000 /* how often test://watched-resource "changes" */
/* test://watched-resource changes every WATCH_MS: the core tells whoever subscribed to it (nobody: nothing is
 * sent); list changes other sessions triggered are announced (mrtr.c). Returns when to look again: the next change
 * only while somebody is subscribed, so that an idle stdio loop reads without a deadline (no poll(2) per message). */
uint64_t run_watch(uint64_t now) {
  uint64_t lists = lists_catch_up(now), next; bool watched = false;
  if (!cur->next_watch) cur->next_watch = now + WATCH_MS;
  if (now >= cur->next_watch) {
    if (picomcp_session_notify(sess, PICOMCP_CHANGE_RESOURCE_UPDATED, S("test://watched-resource"), NULL) == PICOMCP_STATUS_QUEUE_FULL)
      flush(), picomcp_session_notify(sess, PICOMCP_CHANGE_RESOURCE_UPDATED, S("test://watched-resource"), NULL);
    cur->next_watch = now + WATCH_MS;
    flush();
  }
  picomcp_session_is_subscribed(sess, S("test://watched-resource"), &watched);
  next = watched ? cur->next_watch : PICOMCP_NO_DEADLINE;
  return lists < next ? lists : next;
}
static void call_prompt(uint32_t id, const picomcp_call *c, picomcp_str params) {
  static char a1[4096], a2[4096], text[8300];
  picomcp_prompt_message m = {.role = PICOMCP_PROMPT_ROLE_USER, .content = {.kind = PICOMCP_CONTENT_KIND_TEXT}};
  picomcp_str v; size_t n;
  if (c->index == IR_PROMPT) { mrtr_prompt(id, c->index, params); return; }
  m.content.text = S("This is a simple prompt for testing.");
  picomcp_prompt_message two[2] = {{.role = PICOMCP_PROMPT_ROLE_USER}, {.role = PICOMCP_PROMPT_ROLE_USER, .content = {.kind = PICOMCP_CONTENT_KIND_TEXT}}};
  if (c->index == EMBEDDED_PROMPT || c->index == IMAGE_PROMPT) {
    if (c->index == EMBEDDED_PROMPT) { /* the URI asked for, decoded (a longer one is left out) */
      if (picomcp_json_get(c->arguments, S("resourceUri"), &v) || picomcp_json_string(v, a1, sizeof a1, &n)) a1[0] = 0;
      two[0].content = resource_block(a1, "text/plain", "Embedded resource content for testing.");
      two[1].content.text = S("Please process the embedded resource above.");
    } else {
      two[0].content = image_block(); two[1].content.text = S("Please analyze the image above.");
    }
    ANSWER(id, picomcp_server_respond_prompt(&server, sess, id, c->index, two, 2));
    return;
  }
  if (c->index == ARGS_PROMPT) { /* arguments longer than this demo quotes are left out */
    if (picomcp_json_get(c->arguments, S("arg1"), &v) || picomcp_json_string(v, a1, sizeof a1, &n)) a1[0] = 0;
    if (picomcp_json_get(c->arguments, S("arg2"), &v) || picomcp_json_string(v, a2, sizeof a2, &n)) a2[0] = 0;
    snprintf(text, sizeof text, "Prompt with arguments: arg1='%s', arg2='%s'", a1, a2); m.content.text = S(text);
  }
  ANSWER(id, picomcp_server_respond_prompt(&server, sess, id, c->index, &m, 1));
}
/* resources/read of a resource (`c->index` in RESOURCES) or of the template (its `id`: JSON data for it). */
static void call_read(uint32_t id, const picomcp_call *c) {
  static const char *const TEXTS[] = {"This is the content of the static text resource.", NULL, "Watched resource content"};
  picomcp_resource_contents r = {.uri = c->uri}; char json[512]; const char *item = ""; int item_len = 0; size_t i;
  if (c->target == PICOMCP_CALL_TARGET_RESOURCE) {
    r.mime_type = S(RESOURCES[c->index].mime_type);
    if (c->index == STATIC_BINARY) r.blob = S(PNG); else r.text = S(TEXTS[c->index]);
  } else { /* the template: {"id":…,"templateTest":true,"data":"Data for ID: …"} (the id is a URI segment: no quotes) */
    for (i = 0; i < c->var_count; i++)
      if (c->vars[i].name.len == 2 && !memcmp(c->vars[i].name.ptr, "id", 2)) item = c->vars[i].value.ptr, item_len = (int)c->vars[i].value.len;
    if (item_len > 128 || memchr(item, '"', (size_t)item_len) || memchr(item, '\\', (size_t)item_len)) item_len = 0;
    snprintf(json, sizeof json, "{\"id\":\"%.*s\",\"templateTest\":true,\"data\":\"Data for ID: %.*s\"}", item_len, item, item_len, item);
    r.mime_type = S("application/json"); r.text = S(json);
  }
  ANSWER(id, picomcp_server_respond_read(&server, sess, id, &r, 1));
}
/* completion/complete: the candidates that start with the value typed so far. */
static void call_complete(uint32_t id, const picomcp_call *c) {
  static const char *const ARG1_VALUES[] = {"paris", "park", "party", "hello", "help", "testValue1", NULL};
  static const char *const ARG2_VALUES[] = {"world", "word", "work", "testValue2", NULL};
  static const char *const URIS[] = {"test://static-text", "test://static-binary", "test://watched-resource", "test://template/1/data", NULL};
  static const char *const IDS[] = {"1", "2", "3", "42", "123", NULL};
  const char *const *cands = IDS; picomcp_str out[8]; picomcp_completion comp = {.values = out, .has_total = true};
  if (c->target == PICOMCP_CALL_TARGET_PROMPT) {
    cands = c->argument.len == 4 && !memcmp(c->argument.ptr, "arg1", 4) ? ARG1_VALUES
          : c->argument.len == 4 && !memcmp(c->argument.ptr, "arg2", 4) ? ARG2_VALUES
          : c->argument.len == 11 && !memcmp(c->argument.ptr, "resourceUri", 11) ? URIS : IDS + 5;
  }
  for (; *cands && comp.value_count < 8; cands++)
    if (strlen(*cands) >= c->value.len && !memcmp(*cands, c->value.ptr, c->value.len)) out[comp.value_count++] = S(*cands);
  comp.total = comp.value_count;
  ANSWER(id, picomcp_server_respond_completion(&server, sess, id, &comp));
}
/* Takes every event; the views in `e` and `c` are valid until the next call on the session. */
void drain_events(void) {
  picomcp_event e; picomcp_call c; int t;
  while (picomcp_session_poll_served_as(sess, &server, auth_ep, granted, &e, &c) == PICOMCP_STATUS_OK && e.kind != PICOMCP_EVENT_KIND_NONE) {
    switch (e.kind) {
    case PICOMCP_EVENT_KIND_CALL_TOOL: call_tool(e.id, &c, e.json); break;
    case PICOMCP_EVENT_KIND_CALL_PROMPT: call_prompt(e.id, &c, e.json); break;
    case PICOMCP_EVENT_KIND_CALL_READ: call_read(e.id, &c); break;
    case PICOMCP_EVENT_KIND_CALL_COMPLETE: call_complete(e.id, &c); break;
    case PICOMCP_EVENT_KIND_REQUEST: picomcp_session_respond_error(sess, e.id, -32601, S("Method not found"), S(NULL)); break;
    case PICOMCP_EVENT_KIND_CANCELLED: /* the core finished the request: nothing more is sent for it */
      for (t = 0; t < SLOTS; t++) if (cur->t[t].used && cur->t[t].id == e.id) cur->t[t].used = 0, cur->busy--;
      ask_forget(e.id);
      break;
    case PICOMCP_EVENT_KIND_RESPONSE: case PICOMCP_EVENT_KIND_ERROR_RESPONSE: case PICOMCP_EVENT_KIND_TIMED_OUT: ask_answered(&e); break;
    default: if (e.kind == PICOMCP_EVENT_KIND_PEER_VIOLATION) diag(1, "peer violation: %.*s", (int)e.text.len, e.text.ptr);
    }
  }
  flush();
}
int main(int argc, char **argv) {
  static uint8_t in[16384]; /* 16 KiB reads, as the Rust driver (stdio/src/lib.rs, CHUNK): a pipelined load is answered sooner */
  static picomcp_server_slot slots[64]; /* one per tool, resource, template, prompt and prompt argument */
  picomcp_server_options opts;
  char caps[PICOMCP_SERVER_CAPABILITIES_MAX]; static uint8_t key[32]; const char *why;
  picomcp_server_error err; picomcp_config cfg; picomcp_status st; void *mem;
  size_t size = 0, align = 0, max_line = 1u << 20, in_off = 0, in_len = 0, caps_len = 0, taken;
  uint32_t phase = 0; int eof = 0, i; const char *http_addr = NULL;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-line") && i + 1 < argc) max_line = (size_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--http") && i + 1 < argc) http_addr = argv[++i];
    else if (!strncmp(argv[i], "--auth-", 7) && i + 1 < argc && !auth_flag(argv[i], argv[i + 1])) i++; /* auth.c */
    else if (!strcmp(argv[i], "--log-level") && i + 1 < argc) for (diag_level = 0, ++i; diag_level < 4 && strcmp(argv[i], LEVELS[diag_level]); diag_level++) {}
    else diag_level = 4;
    if (diag_level == 4) { fprintf(stderr, "usage: picomcp-demo-c [--http 127.0.0.1:PORT [--auth-issuer URL [--auth-jwks URL] [--auth-resource URL] [--auth-required SCOPES]]] [--max-line BYTES] [--log-level error|warn|info|debug]\n"); return 2; }
  }
  if (max_line < 256) { fprintf(stderr, "picomcp-demo-c: --max-line must be at least 256\n"); return 2; }
  signal(SIGPIPE, SIG_IGN);
  picomcp_server_options_init(&opts); opts.subscribe = true; /* the core keeps the subscriptions */
  if (picomcp_server_init(&server, &CATALOG, &opts, slots, COUNT(slots), &err)) { diag(0, "server: %s", err.message); return 1; }
  picomcp_server_capabilities(&server, caps, sizeof caps, &caps_len);
  picomcp_config_init(&cfg, PICOMCP_ROLE_SERVER);
  cfg.name = S("picomcp-demo-c"); cfg.version = S(PICOMCP_LIB_VERSION_STRING); cfg.capabilities = S(caps);
  cfg.instructions = S("picomcp demo server (C). Tools: echo, add, sleep, and the MCP conformance fixture (test_* tools and prompts, test:// resources).");
  cfg.versions = PICOMCP_VERSIONS_ALL; cfg.max_line = max_line; cfg.inbound_slots = SLOTS; cfg.outbound_slots = ASKS;
  /* 2026-07-28: the core seals the fixtures' requestState with this key (mrtr.c). */
  if ((why = state_key(key))) { diag(0, "%s", why); return 1; }
  cfg.state_key = key; cfg.state_key_len = sizeof key;
  /* No-malloc placement: memory of this size and alignment from anywhere; zeroed (calloc, .bss) for init_zeroed. */
  if ((st = picomcp_session_storage_size(&cfg, &size, &align))) { diag(0, "config: %s", describe(st)); return 1; }
  if (http_addr) return http = 1, http_serve(http_addr, &cfg, size); /* http_loop.c */
  if (!(mem = calloc(1, size))) { diag(0, "out of memory"); return 1; }
  if ((st = picomcp_session_init_zeroed(mem, size, &cfg, now_ms(), &sess))) { diag(0, "session: %s", describe(st)); return 1; }
  diag(2, "picomcp-demo-c %s on stdio, max line %zu bytes, session %zu bytes", PICOMCP_LIB_VERSION_STRING, max_line, size);
  /* After EOF, running sleeps still answer. in[in_off..in_len]: read, not yet taken. */
  while (!eof || in_off < in_len || run_timers(0) != PICOMCP_NO_DEADLINE) {
    uint64_t now, deadline = PICOMCP_NO_DEADLINE, due, watch; struct pollfd pfd;
    /* Fewer bytes taken: queues full (drain, offer again); none: it waits for us (a batch whose sleep
     * still runs), so the rest waits for the timers; closed: the rest is dropped. */
    while (in_off < in_len) {
      picomcp_session_handle_bytes(sess, now_ms(), in + in_off, in_len - in_off, &taken);
      drain_events(); in_off += taken;
      if (!taken) { picomcp_session_phase(sess, &phase); if (phase == PICOMCP_PHASE_CLOSED) in_off = in_len; break; }
    }
    now = now_ms(); due = run_timers(0);
    if (!eof && (watch = run_watch(now)) < due) due = watch; /* while the client is there */
    picomcp_session_poll_timeout(sess, &deadline); if (due < deadline) deadline = due;
    /* Read only when the session took everything read so far; with nothing scheduled, a blocking read (no poll). */
    pfd.fd = eof || in_off < in_len ? -1 : STDIN_FILENO; pfd.events = POLLIN; pfd.revents = pfd.fd >= 0 && deadline == PICOMCP_NO_DEADLINE ? POLLIN : 0;
    if (!pfd.revents && poll(&pfd, 1, deadline == PICOMCP_NO_DEADLINE ? -1 : deadline <= now ? 0 : (int)(deadline - now)) < 0 && errno != EINTR) {
      diag(0, "poll: %s", strerror(errno)); return 1;
    }
    if (pfd.revents) {
      ssize_t n = read(STDIN_FILENO, in, sizeof in);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) { eof = 1; picomcp_session_handle_eof(sess, now_ms()); drain_events(); }
      else { in_off = 0; in_len = (size_t)n; }
    }
    if (deadline <= (now = now_ms())) { picomcp_session_handle_timeout(sess, now); run_timers(now); drain_events(); } /* one is due */
  }
  diag(2, "end of input; exiting");
  picomcp_session_deinit(sess); picomcp_server_deinit(&server); free(mem);
  return 0;
}
