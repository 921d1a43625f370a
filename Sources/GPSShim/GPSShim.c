// GPSShim: every difference between libgps API versions lives in this file.
//
// libgps connects to gpsd, sends ?WATCH and closes the connection; the shim reads gpsd's lines
// from the connection's socket itself, and Swift decodes each line once (GPSDProtocol's
// GPSDReport, the decoder that also reads captures). gps_read is never called: it would unpack
// every report into struct gps_data_t, a second parse nobody reads. Since gps_read never runs,
// libgps never buffers input, so the socket holds every byte gpsd sent that the shim has not.
//
// Checked with gcc against the <gps.h> of gpsd 3.22 (API 11.0, Debian 12, built and tested here);
// the calls used are reported to compile against 3.20, 3.21, 3.23.1, 3.25, 3.26.1 and 3.27.5
// (../shared/reference/gpsd-and-nmea.md §2.3). Version switches:
//
//   gps_fd                         int up to 3.25, intptr_t from 3.26: cast through intptr_t
//   gps_stream's third parameter   void * up to 3.23, const char * from 3.24: pass a void *
//
// Without <gps.h> (no libgps-dev) the file still compiles: every call fails cleanly.

#include "GPSShim.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Without libgps the daemon could only replay tracks. That is a build the builder must ask for
// (STEPWISE_REPLAY_ONLY=1, which Package.swift turns into GPSSHIM_REPLAY_ONLY): otherwise a
// missing libgps-dev stops the build here instead of yielding a daemon that cannot reach gpsd.
// GPSSHIM_HIDE_LIBGPS makes the headers count as missing, for the test of this check.
#if defined(__has_include) && !defined(GPSSHIM_HIDE_LIBGPS)
#if __has_include(<gps.h>)
#define GPSSHIM_HAVE_LIBGPS 1
#endif
#endif
#if !defined(GPSSHIM_HAVE_LIBGPS) && !defined(GPSSHIM_REPLAY_ONLY)
#error "libgps is missing: install libgps-dev (apt-get install libgps-dev pkg-config), or build without gpsd support with STEPWISE_REPLAY_ONLY=1 swift build"
#endif

#ifdef GPSSHIM_HAVE_LIBGPS

#include <gps.h>

// gpsd truncates a report at 10240 bytes including CR LF; one more for the NUL.
#define GPSSHIM_MESSAGE_SIZE 10241

struct gpsshim_session {
  struct gps_data_t data;  // large (24-49 KB): allocated once, never copied
  // Bytes read from the socket and not yet returned as a line: at most one line's worth.
  char input[GPSSHIM_MESSAGE_SIZE];
  size_t input_length;
  // Set while the rest of a line longer than gpsd sends is skipped.
  bool skipping;
  char message[GPSSHIM_MESSAGE_SIZE];
  size_t message_length;
};

bool gpsshim_available(void) { return true; }

int gpsshim_api_major(void) { return GPSD_API_MAJOR_VERSION; }

int gpsshim_api_minor(void) { return GPSD_API_MINOR_VERSION; }

gpsshim_session *gpsshim_open(const char *host, const char *port, int *error) {
  gpsshim_session *s = calloc(1, sizeof *s);
  if (s == NULL) {
    if (error != NULL) *error = ENOMEM;
    return NULL;
  }
  errno = 0;
  if (gps_open(host, port, &s->data) != 0) {
    // libgps leaves a negative netlib code (NL_NOCONNECT, ...) in errno.
    if (error != NULL) *error = errno != 0 ? errno : -6;
    free(s);
    return NULL;
  }
  if (error != NULL) *error = 0;
  return s;
}

int gpsshim_watch(gpsshim_session *s, bool enable, const char *device) {
  if (s == NULL) return -1;
  unsigned int flags = enable ? (WATCH_ENABLE | WATCH_JSON) : WATCH_DISABLE;
  if (enable && device != NULL) flags |= WATCH_DEVICE;
  // void * before API 14, const char * since: a void * argument converts to both.
  errno = 0;
  if (gps_stream(&s->data, flags, (void *)(uintptr_t)device) == 0) return 0;
  return errno > 0 ? errno : EIO;
}

int gpsshim_fd(const gpsshim_session *s) {
  if (s == NULL) return -1;
  // int up to 3.25, intptr_t from 3.26.
  return (int)(intptr_t)s->data.gps_fd;
}

// Moves the first complete line of the input into the message; false when there is none.
static bool take_line(gpsshim_session *s) {
  char *newline = memchr(s->input, '\n', s->input_length);
  if (newline == NULL) return false;
  size_t length = (size_t)(newline - s->input) + 1;
  memcpy(s->message, s->input, length);
  s->message[length] = '\0';
  s->message_length = length;
  s->input_length -= length;
  memmove(s->input, newline + 1, s->input_length);
  return true;
}

bool gpsshim_waiting(gpsshim_session *s, int timeout_us) {
  if (s == NULL) return false;
  if (memchr(s->input, '\n', s->input_length) != NULL) return true;
  struct pollfd p = {.fd = gpsshim_fd(s), .events = POLLIN};
  int timeout_ms = timeout_us <= 0 ? 0 : (timeout_us + 999) / 1000;
  int r;
  do {
    r = poll(&p, 1, timeout_ms);
  } while (r < 0 && errno == EINTR);
  return r > 0;
}

int gpsshim_read(gpsshim_session *s) {
  if (s == NULL) return -1;
  s->message[0] = '\0';
  s->message_length = 0;
  if (take_line(s)) return (int)s->message_length;
  ssize_t n;
  errno = 0;
  do {
    n = read(gpsshim_fd(s), s->input + s->input_length, sizeof s->input - 1 - s->input_length);
  } while (n < 0 && errno == EINTR);
  if (n == 0) {
    errno = 0;  // end of stream, not an error
    return -1;
  }
  if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
  size_t start = s->input_length;
  s->input_length += (size_t)n;
  if (s->skipping) {
    // The tail of an overlong line: drop it up to its newline.
    char *newline = memchr(s->input + start, '\n', s->input_length - start);
    if (newline == NULL) {
      s->input_length = 0;
      return 0;
    }
    s->skipping = false;
    s->input_length -= (size_t)(newline + 1 - s->input);
    memmove(s->input, newline + 1, s->input_length);
  }
  if (take_line(s)) return (int)s->message_length;
  if (s->input_length == sizeof s->input - 1) {
    // Longer than any report gpsd sends: drop it (it would not decode) and its tail.
    s->input_length = 0;
    s->skipping = true;
  }
  return 0;
}

const char *gpsshim_message(const gpsshim_session *s, size_t *length) {
  if (s == NULL) {
    if (length != NULL) *length = 0;
    return "";
  }
  if (length != NULL) *length = s->message_length;
  return s->message;
}

const char *gpsshim_errstr(int error) {
  if (error > 0) return strerror(error);
  return gps_errstr(error);
}

void gpsshim_close(gpsshim_session *s) {
  if (s == NULL) return;
  // gps_close frees libgps's private data, which gps_open allocated: always call it.
  (void)gps_close(&s->data);
  free(s);
}

#else  // no <gps.h>: a build without libgps-dev; every call fails.

bool gpsshim_available(void) { return false; }
int gpsshim_api_major(void) { return 0; }
int gpsshim_api_minor(void) { return 0; }

gpsshim_session *gpsshim_open(const char *host, const char *port, int *error) {
  (void)host;
  (void)port;
  if (error != NULL) *error = ENOSYS;
  return NULL;
}

int gpsshim_watch(gpsshim_session *s, bool enable, const char *device) {
  (void)s;
  (void)enable;
  (void)device;
  return -1;
}

bool gpsshim_waiting(gpsshim_session *s, int timeout_us) {
  (void)s;
  (void)timeout_us;
  return false;
}

int gpsshim_read(gpsshim_session *s) {
  (void)s;
  return -1;
}

const char *gpsshim_message(const gpsshim_session *s, size_t *length) {
  (void)s;
  if (length != NULL) *length = 0;
  return "";
}

int gpsshim_fd(const gpsshim_session *s) {
  (void)s;
  return -1;
}

const char *gpsshim_errstr(int error) {
  return error == ENOSYS ? "built without libgps" : strerror(error > 0 ? error : EINVAL);
}

void gpsshim_close(gpsshim_session *s) { (void)s; }

#endif
