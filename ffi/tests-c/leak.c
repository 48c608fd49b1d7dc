/* Negative control: a session that is never freed. run.sh expects LeakSanitizer and
 * valgrind to report it, which proves both checks can fail. */
#include "picomcp.h"

static int leak(void) {
  picomcp_config cfg;
  picomcp_session *volatile s = 0;
  picomcp_session *out = 0;
  picomcp_status st;
  picomcp_config_init(&cfg, PICOMCP_ROLE_SERVER);
  cfg.name = picomcp_str_from_cstr("leak");
  cfg.version = picomcp_str_from_cstr("1");
  cfg.max_line = 512;
  st = picomcp_session_new(&cfg, 0, &out);
  s = out;
  out = 0;
  s = 0; /* the only pointer to the session is gone: a leak */
  return st == PICOMCP_STATUS_OK ? 0 : 1;
}

int main(void) {
  /* Several: a conservative scanner may find a stale pointer to the newest one. */
  return leak() | leak() | leak();
}
