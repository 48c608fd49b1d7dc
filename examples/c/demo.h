/* What picomcp_demo.c (the demo's tools, stdio) and http_loop.c (--http) share. */
#ifndef PICOMCP_DEMO_H
#define PICOMCP_DEMO_H
#include "picomcp.h"
#define HTTP_SESSIONS 32 /* sessions served at once over HTTP: the endpoint's slots */
extern picomcp_session *sess; /* the session the demo's handlers serve */
/* Serves `s` with the application state of HTTP slot `slot` from now on (fresh: forget that state). */
void demo_select(size_t slot, picomcp_session *s, bool fresh);
void drain_events(void);            /* answers every pending event of `sess` */
uint64_t run_timers(uint64_t now);  /* due sleep progress and answers of `sess`; the next due time */
uint64_t run_watch(uint64_t now);   /* test://watched-resource's periodic change; when it next changes */
uint64_t now_ms(void);
void http_flush(void);              /* http_loop.c: the endpoint takes `sess`'s output */
extern picomcp_server server;      /* the server layer (its definitions: scopes, x-mcp-header) */
extern picomcp_endpoint *auth_ep;   /* http_loop.c: the endpoint under --auth-issuer (NULL: everything allowed) */
extern uint64_t granted;            /* http_loop.c: the scopes of the request being served (picomcp_principal) */
int auth_flag(const char *flag, const char *value);     /* auth.c: takes --auth-*; -1 for an unknown flag */
const picomcp_auth_config *auth_setup(const char *addr); /* auth.c: the configuration (NULL without --auth-issuer) */
picomcp_verify_fn auth_verifier(void);                  /* auth.c: the token check */
int http_serve(const char *addr, const picomcp_config *cfg, size_t session_size); /* http_loop.c */
#endif
