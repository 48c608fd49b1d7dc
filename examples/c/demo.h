/* What picomcp_demo.c (the demo's tools, stdio), ask.c and mrtr.c (the tools that ask the client) and
 * http_loop.c (--http) share. */
#ifndef PICOMCP_DEMO_H
#define PICOMCP_DEMO_H
#include "picomcp.h"
#define HTTP_SESSIONS 32 /* sessions served at once over HTTP: the endpoint's slots */
#define S(lit) picomcp_str_from_cstr(lit)
/* The tools (TOOLS in picomcp_demo.c), prompts and resources, by index in their tables. */
enum { ECHO, ADD, SLEEP, SIMPLE_TEXT, ERROR_HANDLING, IMAGE, AUDIO, EMBEDDED, MIXED, WITH_LOGGING, WITH_PROGRESS, SCHEMA_2020, ECHO_HEADER,
       SAMPLING, ELICITATION, ELICITATION_DEFAULTS, ELICITATION_ENUMS, /* ask.c: questions for the client, both eras */
       IR_ELICITATION, IR_SAMPLING, IR_LIST_ROOTS, IR_REQUEST_STATE, IR_MULTIPLE_INPUTS, IR_MULTI_ROUND, IR_TAMPERED_STATE,
       IR_CAPABILITIES, MISSING_CAPABILITY, STREAMING_ELICITATION, LOGGING_TOOL, TRIGGER_TOOL_CHANGE, TRIGGER_PROMPT_CHANGE, /* mrtr.c */
       SIMPLE_PROMPT = 0, ARGS_PROMPT, EMBEDDED_PROMPT, IMAGE_PROMPT, IR_PROMPT, STATIC_TEXT = 0, STATIC_BINARY, WATCHED };
extern picomcp_session *sess; /* the session the demo's handlers serve */
/* Serves `s` with the application state of HTTP slot `slot` from now on (fresh: forget that state). */
void demo_select(size_t slot, picomcp_session *s, bool fresh);
void drain_events(void);            /* answers every pending event of `sess` */
uint64_t run_timers(uint64_t now);  /* due sleep progress and answers of `sess`; the next due time */
uint64_t run_watch(uint64_t now);   /* test://watched-resource's periodic change; when it next changes */
uint64_t now_ms(void);
extern size_t current;              /* whose application state is in use: 0 stdio, 1 + slot over HTTP */
extern int http;                    /* serving --http */
void flush(void);                   /* sends (stdio) or collects (HTTP) what `sess` queued */
void tool_text(uint32_t id, size_t tool, picomcp_str text, bool json, bool is_error); /* one text block */
void answer_failed(uint32_t id, picomcp_status st); /* logs why, answers an internal error */
/* Runs an answer, draining a full transmit queue once; one that still fails gets an internal error. */
#define ANSWER(id, call) do { picomcp_status st_ = (call); if (st_ == PICOMCP_STATUS_QUEUE_FULL) { flush(); st_ = (call); } \
    if (st_ != PICOMCP_STATUS_OK && st_ != PICOMCP_STATUS_UNKNOWN_REQUEST) answer_failed(id, st_); } while (0)
#define ASKS 8                      /* our questions to the client in flight per session (picomcp_config.outbound_slots) */
/* ask.c: test_sampling and the elicitation tools (`params`: the request's, `args`: its arguments). */
void ask_question(uint32_t id, size_t tool, picomcp_str params, picomcp_str args);
bool ask_answered(const picomcp_event *e); /* a response, error or timeout of one of our questions: its tool call is answered */
void ask_forget(uint32_t id);       /* tool call `id` was cancelled: so are its questions */
void ask_reset(void);               /* a fresh session: no questions */
/* mrtr.c: the 0.2.0 suite's diagnostic fixtures (2026-07-28 input_required results, list-change triggers). */
void mrtr_tool(uint32_t id, size_t tool, picomcp_str params);
void mrtr_prompt(uint32_t id, size_t prompt, picomcp_str params);
uint64_t lists_catch_up(uint64_t now); /* announces list changes other sessions triggered; when to look again */
void lists_reset(void);             /* a fresh session: what changed so far counts as announced */
const char *state_key(uint8_t key[32]); /* PICOMCP_STATE_KEY (64 hex digits), else /dev/urandom; NULL, or why not */
void http_flush(void);              /* http_loop.c: the endpoint takes `sess`'s output */
extern picomcp_server server;      /* the server layer (its definitions: scopes, x-mcp-header) */
extern picomcp_endpoint *auth_ep;   /* http_loop.c: the endpoint under --auth-issuer (NULL: everything allowed) */
extern uint64_t granted;            /* http_loop.c: the scopes of the request being served (picomcp_principal) */
int auth_flag(const char *flag, const char *value);     /* auth.c: takes --auth-*; -1 for an unknown flag */
const picomcp_auth_config *auth_setup(const char *addr); /* auth.c: the configuration (NULL without --auth-issuer) */
picomcp_verify_fn auth_verifier(void);                  /* auth.c: the token check */
int http_serve(const char *addr, const picomcp_config *cfg, size_t session_size); /* http_loop.c */
#endif
