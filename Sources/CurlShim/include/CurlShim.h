// CurlShim: one HTTP exchange over a reused libcurl easy handle, with plain C types only.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; this layer sets
// every option of an exchange in C and hands back the status, the body and libcurl's result.
// A handle keeps its connection cache between exchanges (keep-alive), and is confined to one
// thread at a time: libcurl easy handles are not thread-safe.
#ifndef CURLSHIM_H
#define CURLSHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A reused easy handle.
typedef struct curlshim_handle curlshim_handle;

/// What one exchange gave. `body` is owned by the handle and valid until the next exchange.
typedef struct {
  int result;              // CURLcode: 0 when an HTTP answer arrived (any status)
  long status;             // HTTP status, 0 when none arrived
  const unsigned char *body;
  size_t length;
  double total_seconds;    // from the start of the exchange to its end
  long connects;           // new connections this exchange opened (0: one was reused)
  long os_errno;           // errno of the last failed system call (ECONNREFUSED…), 0 if none
  const char *message;     // libcurl's error text, "" when result is 0
} curlshim_reply;

/// libcurl's result codes the caller tells apart (the shim's names for CURLcode values).
enum {
  CURLSHIM_OK = 0,
  CURLSHIM_UNSUPPORTED_PROTOCOL = 1,
  CURLSHIM_URL_MALFORMAT = 3,
  CURLSHIM_COULDNT_RESOLVE_HOST = 6,
  CURLSHIM_COULDNT_CONNECT = 7,
  CURLSHIM_WRITE_ERROR = 23,
  CURLSHIM_OPERATION_TIMEDOUT = 28,
  CURLSHIM_GOT_NOTHING = 52,
  CURLSHIM_SEND_ERROR = 55,
  CURLSHIM_RECV_ERROR = 56,
};

/// A new handle, or NULL when libcurl cannot make one. Initialises libcurl once per process.
curlshim_handle *curlshim_new(void);

/// Frees the handle and closes its connections.
void curlshim_free(curlshim_handle *handle);

/// One exchange: a POST of `body` (`length` bytes, `content_type`) when `body` is not NULL,
/// otherwise a GET. The whole exchange, connecting included, is bounded by `timeout_ms`.
/// A body longer than `max_bytes` ends the exchange with CURLSHIM_WRITE_ERROR. `ca_file`, when
/// not NULL, is the certificate authority bundle for https (the system's otherwise).
curlshim_reply curlshim_exchange(
    curlshim_handle *handle, const char *url, const char *content_type, const void *body,
    size_t length, long timeout_ms, size_t max_bytes, const char *ca_file);

#ifdef __cplusplus
}
#endif

#endif
