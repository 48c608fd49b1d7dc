/* What the two vector runners share: test_vectors.c (the session vectors, the .jsonl files of
 * tests/vectors) and test_vectors_http.c (the Streamable HTTP vectors, tests/vectors/http). Steps and
 * expected values are read with the library's JSON readers and compared with the subset match
 * of tests/vectors/README.md; a "server" member becomes the server layer's catalog; a
 * "versions" member the revision bits; a "notify" step its change; and each runner's main is
 * the loop over the files it is given. Each runner is one translation unit (ffi/tests-c/run.sh
 * builds it from its .c file alone) that includes this header once. */
#ifndef PICOMCP_TESTS_VECTORS_COMMON_H
#define PICOMCP_TESTS_VECTORS_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picomcp.h"

#define S(lit) picomcp_str_from_cstr(lit)
/* The longest line a step, a sent line or a rendered event may be. */
#define LINE 8192

/* Why the current file failed: FAIL(...) sets it and jumps to the runner's `fail:` label. */
static char why[1024];
#define FAIL(...) do { snprintf(why, sizeof why, __VA_ARGS__); goto fail; } while (0)

/* ---- reading steps with the library's JSON readers ---- */
static picomcp_str view(const char *p, size_t n) { picomcp_str s; s.ptr = p; s.len = n; return s; }
static int has(picomcp_str obj, const char *key, picomcp_str *v) { return picomcp_json_get(obj, S(key), v) == PICOMCP_STATUS_OK; }
static uint32_t kind(picomcp_str v) { uint32_t t = 0; return picomcp_json_kind(v, &t) ? 0 : t; }

static long str(picomcp_str v, char *buf, size_t cap) {
  size_t n = 0;
  return picomcp_json_string(v, buf, cap, &n) ? -1 : (long)n;
}

/* Subset match: every member `exp` lists matches; arrays element by element; "<any>"
 * matches anything present and not null; numbers compare by value. */
static int match(picomcp_str exp, picomcp_str act) {
  static char a[LINE], b[LINE];
  uint32_t te = kind(exp), ta = kind(act);
  size_t i, n = 0, m = 0;
  double x, y;
  picomcp_str k, v, w;
  long la, lb;
  if (te == PICOMCP_JSON_TYPE_STRING && str(exp, a, sizeof a) == 5 && !strcmp(a, "<any>")) return ta && ta != PICOMCP_JSON_TYPE_NULL;
  if (te != ta) return 0;
  switch (te) {
  case PICOMCP_JSON_TYPE_OBJECT:
    for (i = 0; picomcp_json_member_at(exp, i, &k, &v) == PICOMCP_STATUS_OK; i++) {
      char key[256];
      if (str(k, key, sizeof key) < 0 || picomcp_json_get(act, view(key, strlen(key)), &w) || !match(v, w)) return 0;
    }
    return 1;
  case PICOMCP_JSON_TYPE_ARRAY:
    if (picomcp_json_len(exp, &n) || picomcp_json_len(act, &m) || n != m) return 0;
    for (i = 0; i < n; i++) {
      if (picomcp_json_at(exp, i, &v) || picomcp_json_at(act, i, &w) || !match(v, w)) return 0;
    }
    return 1;
  case PICOMCP_JSON_TYPE_STRING:
    la = str(exp, a, sizeof a);
    lb = str(act, b, sizeof b);
    return la >= 0 && la == lb && !memcmp(a, b, (size_t)la);
  case PICOMCP_JSON_TYPE_NUMBER:
    return !picomcp_json_number(exp, &x) && !picomcp_json_number(act, &y) && x == y;
  default:
    return exp.len == act.len && !memcmp(exp.ptr, act.ptr, exp.len);
  }
}

/* ---- the server layer's catalog, built from a "server" member (tests/vectors/README.md,
 * "The server application layer") ---- */
#define MAX_DEFS 16
static picomcp_server server;
static int served; /* `server` is initialised: deinit it after the file */
static picomcp_server_slot slots[8 * MAX_DEFS];
static picomcp_tool tools[MAX_DEFS];
static picomcp_resource resources[MAX_DEFS];
static picomcp_resource_template templates[MAX_DEFS];
static picomcp_prompt prompts[MAX_DEFS];
static picomcp_prompt_argument args[4 * MAX_DEFS];
static char pool[64 * 1024]; /* the tables' strings (NUL-terminated) */
static size_t pool_len;

/* A string member of `obj`, decoded and NUL-terminated in the table pool; NULL when absent. */
static const char *cstr(picomcp_str obj, const char *key) {
  picomcp_str v;
  long n;
  if (!has(obj, key, &v) || kind(v) != PICOMCP_JSON_TYPE_STRING) return NULL;
  if ((n = str(v, pool + pool_len, sizeof pool - pool_len)) < 0) return NULL;
  pool_len += (size_t)n + 1;
  return pool + pool_len - (size_t)n - 1;
}

/* A member's JSON text, NUL-terminated in the table pool; NULL when absent. */
static const char *cjson(picomcp_str obj, const char *key) {
  picomcp_str v;
  if (!has(obj, key, &v) || pool_len + v.len + 1 > sizeof pool) return NULL;
  memcpy(pool + pool_len, v.ptr, v.len);
  pool[pool_len + v.len] = 0;
  pool_len += v.len + 1;
  return pool + pool_len - v.len - 1;
}

static bool flag(picomcp_str obj, const char *key, bool dflt) {
  picomcp_str v;
  bool b = dflt;
  if (has(obj, key, &v)) picomcp_json_bool(v, &b);
  return b;
}
/* Builds the server from the "server" member; its capabilities go into `caps`. */
static int make_server(picomcp_str spec, char *caps, size_t cap) {
  picomcp_catalog cat;
  picomcp_server_options o;
  picomcp_server_error err;
  picomcp_str list, e, a, v;
  size_t i, j, nargs = 0, len = 0;
  int64_t n;
  memset(&cat, 0, sizeof cat);
  pool_len = 0;
  if (has(spec, "tools", &list))
    for (i = 0; i < MAX_DEFS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++, cat.tool_count++) {
      picomcp_tool *t = &tools[i];
      memset(t, 0, sizeof *t);
      t->name = cstr(e, "name"); t->title = cstr(e, "title"); t->description = cstr(e, "description");
      t->input_schema = has(e, "inputSchema", &v) ? cjson(e, "inputSchema") : "{\"type\":\"object\"}";
      t->output_schema = cjson(e, "outputSchema"); t->annotations = cjson(e, "annotations");
      t->icons = cjson(e, "icons"); t->execution = cjson(e, "execution"); t->meta = cjson(e, "_meta");
      t->scopes = cstr(e, "scopes");
    }
  if (has(spec, "resources", &list))
    for (i = 0; i < MAX_DEFS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++, cat.resource_count++) {
      picomcp_resource *r = &resources[i];
      memset(r, 0, sizeof *r);
      r->uri = cstr(e, "uri"); r->name = cstr(e, "name"); r->title = cstr(e, "title");
      r->description = cstr(e, "description"); r->mime_type = cstr(e, "mimeType");
      if (has(e, "size", &v) && !picomcp_json_int(v, &n)) { r->has_size = true; r->size = (uint64_t)n; }
      r->annotations = cjson(e, "annotations"); r->icons = cjson(e, "icons"); r->meta = cjson(e, "_meta");
      r->scopes = cstr(e, "scopes");
    }
  if (has(spec, "resourceTemplates", &list))
    for (i = 0; i < MAX_DEFS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++, cat.template_count++) {
      picomcp_resource_template *r = &templates[i];
      memset(r, 0, sizeof *r);
      r->uri_template = cstr(e, "uriTemplate"); r->name = cstr(e, "name"); r->title = cstr(e, "title");
      r->description = cstr(e, "description"); r->mime_type = cstr(e, "mimeType");
      r->annotations = cjson(e, "annotations"); r->icons = cjson(e, "icons"); r->meta = cjson(e, "_meta");
      r->completable = flag(e, "completable", false);
      r->scopes = cstr(e, "scopes");
    }
  if (has(spec, "prompts", &list))
    for (i = 0; i < MAX_DEFS && picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++, cat.prompt_count++) {
      picomcp_prompt *p = &prompts[i];
      memset(p, 0, sizeof *p);
      p->name = cstr(e, "name"); p->title = cstr(e, "title"); p->description = cstr(e, "description");
      p->icons = cjson(e, "icons"); p->meta = cjson(e, "_meta"); p->scopes = cstr(e, "scopes");
      p->arguments = args + nargs;
      if (has(e, "arguments", &v))
        for (j = 0; nargs < 4 * MAX_DEFS && picomcp_json_at(v, j, &a) == PICOMCP_STATUS_OK; j++, nargs++, p->argument_count++) {
          picomcp_prompt_argument *x = &args[nargs];
          x->name = cstr(a, "name"); x->title = cstr(a, "title"); x->description = cstr(a, "description");
          x->required = flag(a, "required", false); x->completable = flag(a, "completable", false);
        }
    }
  cat.tools = tools; cat.resources = resources; cat.templates = templates; cat.prompts = prompts;
  picomcp_server_options_init(&o);
  if (has(spec, "page_size", &v) && !picomcp_json_int(v, &n)) o.page_size = (size_t)n;
  o.list_changed = flag(spec, "list_changed", o.list_changed);
  o.subscribe = flag(spec, "subscribe", o.subscribe);
  o.logging = flag(spec, "logging", o.logging);
  if (has(spec, "schema_depth", &v) && !picomcp_json_int(v, &n)) o.schema_depth = (size_t)n;
  if (picomcp_server_init(&server, &cat, &o, slots, sizeof slots / sizeof slots[0], &err)) {
    snprintf(why, sizeof why, "server: %s", err.message);
    return 0;
  }
  return picomcp_server_capabilities(&server, caps, cap, &len) == PICOMCP_STATUS_OK;
}

/* ---- the other members and steps both runners read ---- */

/* The revision bits (`picomcp_config.versions`) of a "versions" list. */
static uint32_t versions_of(picomcp_str list) {
  static const char *all[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"};
  char name[16];
  picomcp_str e;
  uint32_t bits = 0;
  size_t i, j;
  for (i = 0; picomcp_json_at(list, i, &e) == PICOMCP_STATUS_OK; i++) {
    if (str(e, name, sizeof name) < 0) continue;
    for (j = 0; j < 5; j++) if (!strcmp(name, all[j])) bits |= 1u << j;
  }
  return bits;
}

/* The change (PICOMCP_CHANGE_*) a "notify" step names: a list's name, or
 * {"resource_updated": URI}, whose URI is decoded into `buf` and viewed by `*uri`. */
static uint32_t change_of(picomcp_str v, char *buf, size_t cap, picomcp_str *uri) {
  picomcp_str x;
  *uri = S(NULL);
  if (kind(v) == PICOMCP_JSON_TYPE_STRING) {
    str(v, buf, cap);
    return !strcmp(buf, "tools_list_changed") ? PICOMCP_CHANGE_TOOLS_LIST_CHANGED
         : !strcmp(buf, "prompts_list_changed") ? PICOMCP_CHANGE_PROMPTS_LIST_CHANGED
         : PICOMCP_CHANGE_RESOURCES_LIST_CHANGED;
  }
  if (has(v, "resource_updated", &x) && str(x, buf, cap) >= 0) *uri = S(buf);
  return PICOMCP_CHANGE_RESOURCE_UPDATED;
}

/* ---- files ---- */

/* The file at `path`, NUL-terminated, in a block to free(); NULL when it cannot be read. */
static char *read_file(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  char *data = NULL;
  if (!f) return NULL;
  if (!fseek(f, 0, SEEK_END) && (*size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
      (data = malloc((size_t)*size + 1)) != NULL && fread(data, 1, (size_t)*size, f) == (size_t)*size) {
    data[*size] = 0;
  } else {
    free(data);
    data = NULL;
  }
  fclose(f);
  return data;
}

/* The next step of a file from `*at` (blank lines and `#` comments skipped), NUL-terminated in
 * place (the file's own NUL ends the last); 0 at `end`. */
static int next_step(char **at, char *end, picomcp_str *line) {
  while (*at < end) {
    char *p = *at, *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) nl = end;
    *nl = 0;
    *at = nl + 1;
    if (nl > p && *p != '#') { *line = view(p, (size_t)(nl - p)); return 1; }
  }
  return 0;
}

/* The line a runner prints for a file; returns `ok`. */
static int report(const char *path, int ok, int steps) {
  if (ok) printf("ok - %s (%d steps)\n", path, steps);
  else printf("not ok - %s: %s\n", path, why);
  return ok;
}

/* A runner's main: `run` on every file named; "NAME: N files, M failed"; exit 1 on a failure. */
static int run_files(int argc, char **argv, const char *name, int (*run)(const char *)) {
  int i, failed = 0;
  if (argc < 2) { fprintf(stderr, "usage: %s FILE.jsonl...\n", name); return 2; }
  for (i = 1; i < argc; i++) {
    why[0] = 0;
    failed += !run(argv[i]);
  }
  printf("%s: %d files, %d failed\n", name, argc - 1, failed);
  return failed ? 1 : 0;
}

#endif
