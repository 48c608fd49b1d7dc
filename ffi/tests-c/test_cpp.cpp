// The same header compiled as C++17 (-Wall -Wextra -Werror -pedantic): a session, an
// event, the JSON readers and writer, used from C++ with C++ types around them.
#include "picomcp.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {
int failures = 0;
void check(bool ok, const char *what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "test_cpp: %s failed\n", what);
  }
}
picomcp_str str(const std::string &s) { return picomcp_str{s.data(), s.size()}; }
std::string text(picomcp_str v) { return v.ptr ? std::string(v.ptr, v.len) : std::string(); }
}  // namespace

int main() {
  picomcp_config cfg;
  check(picomcp_config_init(&cfg, PICOMCP_ROLE_SERVER) == PICOMCP_STATUS_OK, "config_init");
  const std::string caps = "{\"tools\":{}}";
  cfg.name = picomcp_str_from_cstr("cpp");
  cfg.version = picomcp_str_from_cstr("1");
  cfg.capabilities = str(caps);
  cfg.max_line = 2048;
  size_t size = 0, align = 0;
  check(picomcp_session_storage_size(&cfg, &size, &align) == PICOMCP_STATUS_OK, "storage_size");
  std::vector<uint64_t> mem((size + 7) / 8);  // 8-aligned, caller-owned memory
  picomcp_session *s = nullptr;
  check(picomcp_session_init(mem.data(), mem.size() * 8, &cfg, 0, &s) == PICOMCP_STATUS_OK, "init");
  const std::string in =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
      "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n";
  size_t taken = 0;
  check(picomcp_session_handle_bytes(s, 0, reinterpret_cast<const uint8_t *>(in.data()), in.size(), &taken) ==
            PICOMCP_STATUS_OK && taken == in.size(), "handle_bytes");
  picomcp_event e;
  std::vector<std::string> seen;
  while (picomcp_session_poll_event(s, &e) == PICOMCP_STATUS_OK && e.kind != PICOMCP_EVENT_KIND_NONE) {
    if (e.kind == PICOMCP_EVENT_KIND_REQUEST) {
      picomcp_str name;
      check(picomcp_json_get(e.json, picomcp_str_from_cstr("name"), &name) == PICOMCP_STATUS_OK, "json_get");
      seen.push_back(text(e.method_name) + " " + text(name));
      char buf[128];
      picomcp_writer w;
      size_t n = 0;
      picomcp_writer_init(&w, buf, sizeof buf);
      picomcp_writer_begin_object(&w);
      picomcp_writer_key(&w, picomcp_str_from_cstr("ok"));
      picomcp_writer_bool(&w, true);
      picomcp_writer_end_object(&w);
      check(picomcp_writer_finish(&w, &n) == PICOMCP_STATUS_OK, "writer");
      check(picomcp_session_respond(s, e.id, picomcp_str{buf, n}) == PICOMCP_STATUS_OK, "respond");
    }
  }
  check(seen.size() == 1 && seen[0] == "tools/call \"echo\"", "request event");
  std::string out(4096, '\0');
  size_t n = 0;
  check(picomcp_session_poll_transmit(s, reinterpret_cast<uint8_t *>(&out[0]), out.size(), &n) == PICOMCP_STATUS_OK,
        "poll_transmit");
  out.resize(n);
  check(out.find("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":true}}\n") != std::string::npos, "response line");
  char msg[128];
  picomcp_status_describe(PICOMCP_STATUS_UNKNOWN_REQUEST, msg, sizeof msg);
  check(std::string(msg).rfind("PICOMCP_STATUS_UNKNOWN_REQUEST", 0) == 0, "describe");
  check(picomcp_session_deinit(s) == PICOMCP_STATUS_OK, "deinit");
  std::printf("test_cpp: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
