#include "CurlShim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_ok = 0;

static void global_init(void) { global_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }

curlshim_handle *curlshim_new(void) {
  pthread_once(&global_once, global_init);
  if (!global_ok) return NULL;
  curlshim_handle *h = calloc(1, sizeof *h);
  if (h == NULL) return NULL;
  h->curl = curl_easy_init();
  if (h->curl == NULL) {
    free(h);
    return NULL;
  }
  return h;
}

void curlshim_free(curlshim_handle *h) {
  if (h == NULL) return;
  curl_easy_cleanup(h->curl);
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
  curl_easy_reset(c);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: the daemon has threads
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // whatever this libcurl can decode
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->error);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "stepwised");
  if (ca_file != NULL) curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
  struct curl_slist *headers = NULL;
  if (body != NULL) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    if (content_type != NULL) {
      char line[128];
      snprintf(line, sizeof line, "Content-Type: %s", content_type);
      headers = curl_slist_append(headers, line);
    }
    // No "Expect: 100-continue" round trip before the body.
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  CURLcode code = curl_easy_perform(c);
  curl_slist_free_all(headers);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
  r.result = (int)code;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &r.total_seconds);
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &r.connects);
  curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &r.os_errno);
  r.body = h->body;
  r.length = h->length;
  if (code != CURLE_OK) {
    if (h->too_large) {
      snprintf(h->error, sizeof h->error, "the reply is larger than %zu bytes", max_bytes);
    } else if (h->error[0] == 0) {
      snprintf(h->error, sizeof h->error, "%s", curl_easy_strerror(code));
    }
  }
  r.message = h->error;
  return r;
}
