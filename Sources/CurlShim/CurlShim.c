#include "CurlShim.h"

#include <dlfcn.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The declarations only, without the type-checking macros, which would name the functions.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

struct curlshim_handle {
  CURL *curl;
  unsigned char *body;
  size_t length;
  size_t capacity;
  size_t max_bytes;
  int too_large;
  char error[CURL_ERROR_SIZE];
};

// libcurl is opened on first use, not linked: loading it loads GnuTLS, Kerberos, LDAP, SSH and
// more, and runs their initialisers, about 4 MiB of resident memory in a daemon that may never
// be given a router (docs/notebook/profiling.md). Its soname is that of every libcurl 7.16 and
// later.
static const char curl_library[] = "libcurl.so.4";

static struct {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *curl);
  CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
  CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
  CURLcode (*easy_perform)(CURL *curl);
  void (*easy_reset)(CURL *curl);
  const char *(*easy_strerror)(CURLcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
  void (*slist_free_all)(struct curl_slist *list);
} api;

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_ok = 0;

// Each function by its name, or 0 when the library lacks it.
static int resolve(void *library, void **slot, const char *name) {
  *slot = dlsym(library, name);
  return *slot != NULL;
}

// libcurl's TLS is OpenSSL too: asked not to tear itself down at exit, as in MosquittoShim.c
// (which says why). The two shims are separate targets, so the three lines are repeated.
static void keep_openssl_until_exit(void *library) {
  int (*init_crypto)(uint64_t, const void *) =
      (int (*)(uint64_t, const void *))dlsym(library, "OPENSSL_init_crypto");
  if (init_crypto != NULL) init_crypto(0x00080000ULL, NULL);
}

static void global_init(void) {
  void *library = dlopen(curl_library, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) return;
  keep_openssl_until_exit(library);
  int ok = resolve(library, (void **)&api.global_init, "curl_global_init") &&
           resolve(library, (void **)&api.easy_init, "curl_easy_init") &&
           resolve(library, (void **)&api.easy_cleanup, "curl_easy_cleanup") &&
           resolve(library, (void **)&api.easy_setopt, "curl_easy_setopt") &&
           resolve(library, (void **)&api.easy_getinfo, "curl_easy_getinfo") &&
           resolve(library, (void **)&api.easy_perform, "curl_easy_perform") &&
           resolve(library, (void **)&api.easy_reset, "curl_easy_reset") &&
           resolve(library, (void **)&api.easy_strerror, "curl_easy_strerror") &&
           resolve(library, (void **)&api.slist_append, "curl_slist_append") &&
           resolve(library, (void **)&api.slist_free_all, "curl_slist_free_all");
  global_ok = ok && api.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

curlshim_handle *curlshim_new(void) {
  pthread_once(&global_once, global_init);
  if (!global_ok) return NULL;
  curlshim_handle *h = calloc(1, sizeof *h);
  if (h == NULL) return NULL;
  h->curl = api.easy_init();
  if (h->curl == NULL) {
    free(h);
    return NULL;
  }
  return h;
}

void curlshim_free(curlshim_handle *h) {
  if (h == NULL) return;
  api.easy_cleanup(h->curl);
  free(h->body);
  free(h);
}

static size_t collect(char *data, size_t size, size_t count, void *user) {
  curlshim_handle *h = user;
  size_t n = size * count;
  if (h->length + n > h->max_bytes) {
    h->too_large = 1;
    return 0;  // libcurl ends the transfer with CURLE_WRITE_ERROR
  }
  if (h->length + n > h->capacity) {
    size_t c = h->capacity ? h->capacity : 16384;
    while (c < h->length + n) c *= 2;
    unsigned char *b = realloc(h->body, c);
    if (b == NULL) return 0;
    h->body = b;
    h->capacity = c;
  }
  memcpy(h->body + h->length, data, n);
  h->length += n;
  return n;
}

curlshim_reply curlshim_exchange(
    curlshim_handle *h, const char *url, const char *content_type, const void *body,
    size_t length, long timeout_ms, size_t max_bytes, const char *ca_file) {
  curlshim_reply r = {0};
  CURL *c = h->curl;
  h->length = 0;
  h->too_large = 0;
  h->max_bytes = max_bytes;
  h->error[0] = 0;
  // Options are set afresh for each exchange; curl_easy_reset keeps the connection cache.
  api.easy_reset(c);
  api.easy_setopt(c, CURLOPT_URL, url);
  api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: the daemon has threads
  api.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  api.easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  api.easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  api.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // whatever this libcurl can decode
  api.easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  api.easy_setopt(c, CURLOPT_WRITEDATA, h);
  api.easy_setopt(c, CURLOPT_ERRORBUFFER, h->error);
  api.easy_setopt(c, CURLOPT_USERAGENT, "stepwised");
  if (ca_file != NULL) api.easy_setopt(c, CURLOPT_CAINFO, ca_file);
  struct curl_slist *headers = NULL;
  if (body != NULL) {
    api.easy_setopt(c, CURLOPT_POST, 1L);
    api.easy_setopt(c, CURLOPT_POSTFIELDS, body);
    api.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    if (content_type != NULL) {
      char line[128];
      snprintf(line, sizeof line, "Content-Type: %s", content_type);
      headers = api.slist_append(headers, line);
    }
    // No "Expect: 100-continue" round trip before the body.
    headers = api.slist_append(headers, "Expect:");
    api.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  } else {
    api.easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  CURLcode code = api.easy_perform(c);
  api.slist_free_all(headers);
  api.easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
  r.result = (int)code;
  api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  api.easy_getinfo(c, CURLINFO_TOTAL_TIME, &r.total_seconds);
  api.easy_getinfo(c, CURLINFO_NUM_CONNECTS, &r.connects);
  api.easy_getinfo(c, CURLINFO_OS_ERRNO, &r.os_errno);
  r.body = h->body;
  r.length = h->length;
  if (code != CURLE_OK) {
    if (h->too_large) {
      snprintf(h->error, sizeof h->error, "the reply is larger than %zu bytes", max_bytes);
    } else if (h->error[0] == 0) {
      snprintf(h->error, sizeof h->error, "%s", api.easy_strerror(code));
    }
  }
  r.message = h->error;
  return r;
}
