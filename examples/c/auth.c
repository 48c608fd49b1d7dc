/* picomcp-demo-c --http ADDR --auth-issuer URL: the HTTP demo as an OAuth 2.1 protected resource. The core checks
 * audience, expiry and scopes (picomcp_endpoint_handle_request_auth); this file is the host's half: the token's
 * signature (RS256 or ES256, OpenSSL's libcrypto, over the authorization server's JWKS) and its issuer, then the
 * payload goes to the core as claims (picomcp_claims_report_json). The JWKS URL is --auth-jwks or `jwks_uri` of the
 * issuer's RFC 8414 (then OpenID) metadata, fetched with a blocking HTTP/1.0 GET: loopback http:// only, which is
 * all the demo needs (tests/auth runs its authorization server on 127.0.0.1). Keys are fetched at start and again
 * for an unknown `kid` (at most every 10 s). Memory: fixed buffers; OpenSSL allocates its key objects.
 * libcrypto is not linked: auth_setup opens it (dlopen) under --auth-issuer only. Linked, the dynamic loader would map
 * and relocate it in every run, stdio included: about 1.4 MiB of resident memory and most of the start-up time. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include "demo.h"
#define DOC 65536 /* the largest metadata or JWKS document */
#define TOKEN 8192 /* the largest token part decoded */
static char issuer[512], jwks_url[1024], resource[512], required[256], jwks[DOC];
static uint64_t fetched_ms;
static const picomcp_str SCOPES[2] = {{"mcp", 3}, {"mcp:admin", 9}}; /* bit i of a grant is SCOPES[i] */
static picomcp_str server_list[1], supported[1] = {{"mcp", 3}};
static picomcp_auth_config ac;
/* The libcrypto functions this file calls, as (return type, name, parameters): reached through `ossl`, filled by
 * load_crypto. Each pointer's type is checked against OpenSSL's own declaration when compiling (OSSL_LOAD). */
#define OSSL_FNS(X) \
  X(BIGNUM *, BN_bin2bn, (const unsigned char *, int, BIGNUM *)) X(void, BN_free, (BIGNUM *)) \
  X(ECDSA_SIG *, ECDSA_SIG_new, (void)) X(void, ECDSA_SIG_free, (ECDSA_SIG *)) X(int, ECDSA_SIG_set0, (ECDSA_SIG *, BIGNUM *, BIGNUM *)) \
  X(int, i2d_ECDSA_SIG, (const ECDSA_SIG *, unsigned char **)) \
  X(EVP_MD_CTX *, EVP_MD_CTX_new, (void)) X(void, EVP_MD_CTX_free, (EVP_MD_CTX *)) X(const EVP_MD *, EVP_sha256, (void)) \
  X(int, EVP_DigestVerifyInit, (EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *)) \
  X(int, EVP_DigestVerify, (EVP_MD_CTX *, const unsigned char *, size_t, const unsigned char *, size_t)) \
  X(EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_name, (OSSL_LIB_CTX *, const char *, const char *)) X(void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *)) \
  X(int, EVP_PKEY_fromdata_init, (EVP_PKEY_CTX *)) X(int, EVP_PKEY_fromdata, (EVP_PKEY_CTX *, EVP_PKEY **, int, OSSL_PARAM *)) \
  X(void, EVP_PKEY_free, (EVP_PKEY *)) X(OSSL_PARAM_BLD *, OSSL_PARAM_BLD_new, (void)) X(void, OSSL_PARAM_BLD_free, (OSSL_PARAM_BLD *)) \
  X(int, OSSL_PARAM_BLD_push_BN, (OSSL_PARAM_BLD *, const char *, const BIGNUM *)) \
  X(int, OSSL_PARAM_BLD_push_utf8_string, (OSSL_PARAM_BLD *, const char *, const char *, size_t)) \
  X(int, OSSL_PARAM_BLD_push_octet_string, (OSSL_PARAM_BLD *, const char *, const void *, size_t)) \
  X(OSSL_PARAM *, OSSL_PARAM_BLD_to_param, (OSSL_PARAM_BLD *)) X(void, OSSL_PARAM_free, (OSSL_PARAM *))
#define OSSL_MEMBER(ret, name, params) ret (*name) params;
static struct { OSSL_FNS(OSSL_MEMBER) } ossl;
/* Opens libcrypto and fills `ossl`; NULL, or why not. sizeof(0 ? &f : ossl.f) fails to compile (-Werror) when the
 * pointer's type differs from OpenSSL's declaration of f, and, never evaluated, references no libcrypto symbol. */
static const char *load_crypto(void) {
  static const char *const NAMES[] = {"libcrypto.so." OPENSSL_MSTR(OPENSSL_VERSION_MAJOR), "libcrypto.so"};
  void *lib = NULL, *sym; size_t i; const char *why;
  for (i = 0; !lib && i < sizeof NAMES / sizeof *NAMES; i++) lib = dlopen(NAMES[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib) return (why = dlerror()) ? why : "cannot open libcrypto";
#define OSSL_LOAD(ret, name, params) (void)sizeof(0 ? &name : ossl.name); \
  if (!(sym = dlsym(lib, #name))) return "libcrypto lacks " #name; \
  memcpy(&ossl.name, &sym, sizeof sym);
  OSSL_FNS(OSSL_LOAD)
  return NULL;
}
/* GET `url` (http://HOST[:PORT]/PATH) into `out` (NUL-terminated body); 0 on a 200. */
static int get(const char *url, char *out, size_t cap) {
  char host[256], port[8] = "80", req[1400]; const char *h, *path, *colon; struct addrinfo hints, *ai;
  size_t len = 0; ssize_t n; int fd, status = 0; char *body;
  if (strncmp(url, "http://", 7)) return -1;
  h = url + 7; path = strchr(h, '/'); if (!path) path = "/";
  colon = memchr(h, ':', (size_t)(path - h));
  if ((size_t)((colon ? colon : path) - h) >= sizeof host) return -1;
  memcpy(host, h, (size_t)((colon ? colon : path) - h)); host[(colon ? colon : path) - h] = 0;
  if (colon) { if ((size_t)(path - colon - 1) >= sizeof port) return -1; memcpy(port, colon + 1, (size_t)(path - colon - 1)); port[path - colon - 1] = 0; }
  memset(&hints, 0, sizeof hints); hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, port, &hints, &ai)) return -1;
  fd = socket(ai->ai_family, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) { freeaddrinfo(ai); if (fd >= 0) close(fd); return -1; }
  freeaddrinfo(ai);
  n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %.*s\r\nAccept: application/json\r\n\r\n", path, (int)(path - h), h);
  if (n < 0 || (size_t)n >= sizeof req || send(fd, req, (size_t)n, 0) != n) { close(fd); return -1; }
  while (len + 1 < cap && (n = recv(fd, out + len, cap - 1 - len, 0)) > 0) len += (size_t)n;
  close(fd); out[len] = 0;
  if (sscanf(out, "HTTP/1.%*d %d", &status) != 1 || status != 200 || !(body = strstr(out, "\r\n\r\n"))) return -1;
  memmove(out, body + 4, len - (size_t)(body + 4 - out) + 1);
  return 0;
}
/* `member` of the JSON object `doc` as a C string in `out`; 0 when it is a string that fits. */
static int member(picomcp_str doc, const char *key, char *out, size_t cap) {
  picomcp_str v; size_t n;
  return picomcp_json_get(doc, S(key), &v) || picomcp_json_string(v, out, cap, &n) ? -1 : 0;
}
/* Fetches the JWKS (finding its URL in the issuer's metadata the first time); 0 when it is in `jwks`. */
static int fetch_keys(void) {
  static const char *wk[] = {"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"};
  char url[1024]; size_t i, base = strlen(issuer);
  fetched_ms = now_ms();
  while (base && issuer[base - 1] == '/') base--;
  for (i = 0; !jwks_url[0] && i < 2; i++)
    if (snprintf(url, sizeof url, "%.*s%s", (int)base, issuer, wk[i]) < (int)sizeof url && !get(url, jwks, sizeof jwks))
      member(S(jwks), "jwks_uri", jwks_url, sizeof jwks_url);
  if (!jwks_url[0] || get(jwks_url, jwks, sizeof jwks) || picomcp_json_validate(S(jwks))) {
    jwks[0] = 0; fprintf(stderr, "picomcp-demo-c: auth: no JWKS from %s\n", jwks_url[0] ? jwks_url : issuer); return -1;
  }
  return 0;
}
/* base64url (no padding) of `in` into `out`; the decoded length, or -1. */
static long b64url(const char *in, size_t len, unsigned char *out, size_t cap) {
  unsigned long acc = 0; size_t i, n = 0; int bits = 0;
  for (i = 0; i < len; i++) {
    char c = in[i]; int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52 : c == '-' ? 62 : c == '_' ? 63 : -1;
    if (v < 0) return -1;
    acc = (acc << 6) | (unsigned)v; bits += 6;
    if (bits >= 8) { if (n == cap) return -1; bits -= 8; out[n++] = (unsigned char)(acc >> bits); }
  }
  return (long)n;
}
/* The base64url member `key` of the JWK `jwk`, decoded into `out`; its length or -1. */
static long jwk_bytes(picomcp_str jwk, const char *key, unsigned char *out, size_t cap) {
  char text[1024]; return member(jwk, key, text, sizeof text) ? -1 : b64url(text, strlen(text), out, cap);
}
/* The public key of `jwk` for `alg` (RS256: kty RSA; ES256: kty EC, crv P-256), or NULL. */
static EVP_PKEY *jwk_key(picomcp_str jwk, const char *alg) {
  unsigned char a[600], b[600]; char kty[8], crv[16]; long na, nb; EVP_PKEY *key = NULL; EVP_PKEY_CTX *ctx;
  OSSL_PARAM_BLD *bld = ossl.OSSL_PARAM_BLD_new(); OSSL_PARAM *params = NULL; BIGNUM *n = NULL, *e = NULL; int rsa;
  if (!bld || member(jwk, "kty", kty, sizeof kty)) goto done;
  rsa = !strcmp(alg, "RS256");
  if (rsa ? strcmp(kty, "RSA") : strcmp(alg, "ES256") || strcmp(kty, "EC") || member(jwk, "crv", crv, sizeof crv) || strcmp(crv, "P-256")) goto done;
  if (rsa) {
    if ((na = jwk_bytes(jwk, "n", a, sizeof a)) <= 0 || (nb = jwk_bytes(jwk, "e", b, sizeof b)) <= 0) goto done;
    n = ossl.BN_bin2bn(a, (int)na, NULL); e = ossl.BN_bin2bn(b, (int)nb, NULL);
    if (!n || !e || !ossl.OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) || !ossl.OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e)) goto done;
  } else {
    if (jwk_bytes(jwk, "x", a + 1, 32) != 32 || jwk_bytes(jwk, "y", a + 33, 32) != 32) goto done;
    a[0] = 4; /* an uncompressed point: 04 || x || y */
    if (!ossl.OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
        !ossl.OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, a, 65)) goto done;
  }
  if (!(params = ossl.OSSL_PARAM_BLD_to_param(bld)) || !(ctx = ossl.EVP_PKEY_CTX_new_from_name(NULL, rsa ? "RSA" : "EC", NULL))) goto done;
  if (ossl.EVP_PKEY_fromdata_init(ctx) <= 0 || ossl.EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0) key = NULL;
  ossl.EVP_PKEY_CTX_free(ctx);
done:
  ossl.OSSL_PARAM_free(params); ossl.OSSL_PARAM_BLD_free(bld); ossl.BN_free(n); ossl.BN_free(e);
  return key;
}
/* The JWK of `kid` (the first key without a kid), or -1. */
static int find_key(const char *kid, picomcp_str *out) {
  picomcp_str keys, k; char id[256]; size_t i;
  if (!jwks[0] || picomcp_json_get(S(jwks), S("keys"), &keys)) return -1;
  for (i = 0; !picomcp_json_at(keys, i, &k); i++)
    if (!kid[0] || (!member(k, "kid", id, sizeof id) && !strcmp(id, kid))) return *out = k, 0;
  return -1;
}
/* Whether `sig` signs `data` under `key` (ES256: the JWS r || s form, made DER for OpenSSL). */
static bool verify_sig(EVP_PKEY *key, bool es, const unsigned char *data, size_t len, const unsigned char *sig, size_t sig_len) {
  unsigned char der[80], *p = der; int der_len = 0; bool ok = false; EVP_MD_CTX *md = ossl.EVP_MD_CTX_new();
  if (es) {
    ECDSA_SIG *s = ossl.ECDSA_SIG_new(); BIGNUM *r, *t;
    if (!s || sig_len != 64) { ossl.ECDSA_SIG_free(s); ossl.EVP_MD_CTX_free(md); return false; }
    r = ossl.BN_bin2bn(sig, 32, NULL); t = ossl.BN_bin2bn(sig + 32, 32, NULL);
    if (r && t && ossl.ECDSA_SIG_set0(s, r, t)) der_len = ossl.i2d_ECDSA_SIG(s, &p); else ossl.BN_free(r), ossl.BN_free(t);
    ossl.ECDSA_SIG_free(s);
    if (der_len <= 0) { ossl.EVP_MD_CTX_free(md); return false; }
    sig = der; sig_len = (size_t)der_len;
  }
  ok = md && ossl.EVP_DigestVerifyInit(md, NULL, ossl.EVP_sha256(), NULL, key) == 1 && ossl.EVP_DigestVerify(md, sig, sig_len, data, len) == 1;
  ossl.EVP_MD_CTX_free(md);
  return ok;
}
/* picomcp_verify_fn: the signature and the issuer; the payload's claims go to the core. */
static bool verify(void *user, const uint8_t *token, size_t len, picomcp_claims *claims) {
  static unsigned char head[TOKEN], body[TOKEN], sig[1024]; char alg[16], kid[256] = "", iss[512];
  const char *t = (const char *)token, *d1 = memchr(t, '.', len), *d2; long nh, nb, ns; picomcp_str jwk, h;
  EVP_PKEY *key; bool ok;
  (void)user;
  if (!d1 || !(d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - t)))) return false;
  if ((nh = b64url(t, (size_t)(d1 - t), head, sizeof head - 1)) < 0 || (nb = b64url(d1 + 1, (size_t)(d2 - d1 - 1), body, sizeof body - 1)) < 0 ||
      (ns = b64url(d2 + 1, len - (size_t)(d2 + 1 - t), sig, sizeof sig)) <= 0) return false;
  h.ptr = (const char *)head; h.len = (size_t)nh;
  if (picomcp_json_validate(h) || member(h, "alg", alg, sizeof alg) || (strcmp(alg, "RS256") && strcmp(alg, "ES256"))) return false;
  member(h, "kid", kid, sizeof kid);
  if (find_key(kid, &jwk) && (now_ms() - fetched_ms < 10000 || fetch_keys() || find_key(kid, &jwk))) return false; /* rotated? */
  if (!(key = jwk_key(jwk, alg))) return false;
  ok = verify_sig(key, alg[0] == 'E', token, (size_t)(d2 - t), sig, (size_t)ns);
  ossl.EVP_PKEY_free(key);
  h.ptr = (const char *)body; h.len = (size_t)nb;
  if (!ok || picomcp_json_validate(h) || member(h, "iss", iss, sizeof iss) || strcmp(iss, issuer)) return false;
  return picomcp_claims_report_json(claims, body, (size_t)nb) == PICOMCP_STATUS_OK;
}
int auth_flag(const char *flag, const char *value) {
  char *to = !strcmp(flag, "--auth-issuer") ? issuer : !strcmp(flag, "--auth-jwks") ? jwks_url : !strcmp(flag, "--auth-resource") ? resource
           : !strcmp(flag, "--auth-required") ? required : NULL;
  size_t cap = to == issuer ? sizeof issuer : to == jwks_url ? sizeof jwks_url : to == resource ? sizeof resource : sizeof required;
  if (!to || !value || strlen(value) >= cap) return -1;
  strcpy(to, value);
  return 0;
}
const picomcp_auth_config *auth_setup(const char *addr) {
  const char *why;
  if (!issuer[0]) return NULL;
  if ((why = load_crypto())) { fprintf(stderr, "picomcp-demo-c: auth: %s\n", why); exit(1); } /* never serve unprotected */
  if (!resource[0]) snprintf(resource, sizeof resource, "http://%s/mcp", addr);
  if (!required[0]) strcpy(required, "mcp");
  fetch_keys(); /* else at the first token */
  picomcp_auth_config_init(&ac);
  server_list[0] = S(issuer);
  ac.resource = S(resource); ac.authorization_servers = server_list; ac.authorization_server_count = 1;
  ac.scopes = SCOPES; ac.scope_count = 2; ac.scopes_supported = supported; ac.scopes_supported_count = 1;
  ac.required = S(required);
  return &ac;
}
picomcp_verify_fn auth_verifier(void) { return verify; }
