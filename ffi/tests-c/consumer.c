/* An installed-library consumer: built by ffi/tests-c/run.sh through pkg-config and
 * through find_package(picomcp), from a temporary install prefix. */
#include <stdio.h>
#include <string.h>

#include "picomcp.h"

int main(void) {
  picomcp_config cfg;
  picomcp_session *s = NULL;
  picomcp_event e;
  const char *init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                     "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n";
  char out[1024];
  size_t taken = 0, n = 0;
  if (picomcp_config_init(&cfg, PICOMCP_ROLE_SERVER) != PICOMCP_STATUS_OK) return 1;
  cfg.name = picomcp_str_from_cstr("consumer");
  cfg.version = picomcp_str_from_cstr(PICOMCP_LIB_VERSION_STRING);
  cfg.max_line = 4096;
  if (picomcp_session_new(&cfg, 0, &s) != PICOMCP_STATUS_OK) return 1;
  picomcp_session_handle_bytes(s, 0, (const uint8_t *)init, strlen(init), &taken);
  picomcp_session_poll_event(s, &e);
  picomcp_session_poll_transmit(s, (uint8_t *)out, sizeof out - 1, &n);
  out[n] = 0;
  picomcp_session_free(s);
  if (e.kind != PICOMCP_EVENT_KIND_NEGOTIATED || !strstr(out, "\"consumer\"")) return 1;
  printf("consumer: picomcp %s ok\n", PICOMCP_LIB_VERSION_STRING);
  return 0;
}
