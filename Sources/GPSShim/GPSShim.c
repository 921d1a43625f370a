// GPSShim: every difference between libgps API versions lives in this file.
//
// Checked with gcc against the <gps.h> of gpsd 3.22 (API 11.0, Debian 12, built and tested here);
// the same pattern is reported to compile against 3.20, 3.21, 3.23.1, 3.25, 3.26.1 and 3.27.5
// (../shared/reference/gpsd-and-nmea.md §2.3). Version switches:
//
//   GPSD_API_MAJOR_VERSION >= 10   fix.status (earlier: data.status)
//   GPSD_API_MAJOR_VERSION >= 9    fix.time is a timespec, altHAE/altMSL (earlier: double, altitude)
//   GPSD_API_MAJOR_VERSION >= 7    three-argument gps_read (earlier: one argument, no message copy)
//   gps_fd                         int up to 3.25, intptr_t from 3.26: cast through intptr_t
//   gps_stream's third parameter   void * up to 3.23, const char * from 3.24: pass a void *
//   status names                   STATUS_FIX exists only up to 3.23.0: the shim numbers statuses
//                                  itself (gpsshim_status), like gpsd's JSON `status`
//
// Without <gps.h> (no libgps-dev) the file still compiles: every call fails cleanly.

#include "GPSShim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

bool gpsshim_waiting(gpsshim_session *s, int timeout_us) {
  if (s == NULL) return false;
  return gps_waiting(&s->data, timeout_us);
}

static gpsshim_kind classify(const char *message) {
  if (strstr(message, "\"class\":\"TPV\"") != NULL) return GPSSHIM_KIND_TPV;
  if (strstr(message, "\"class\":\"SKY\"") != NULL) return GPSSHIM_KIND_SKY;
  return GPSSHIM_KIND_OTHER;
}

int gpsshim_read(gpsshim_session *s, gpsshim_kind *kind) {
  if (kind != NULL) *kind = GPSSHIM_KIND_NONE;
  if (s == NULL) return -1;
  s->message[0] = '\0';
  s->message_length = 0;
#if GPSD_API_MAJOR_VERSION >= 7
  int n = gps_read(&s->data, s->message, (int)sizeof s->message);
#else
  int n = gps_read(&s->data);
  if (n > 0) {
    const char *raw = gps_data(&s->data);
    if (raw != NULL) {
      strncpy(s->message, raw, sizeof s->message - 1);
      s->message[sizeof s->message - 1] = '\0';
    }
  }
#endif
  if (n > 0) {
    s->message_length = strnlen(s->message, sizeof s->message);
    if (kind != NULL) *kind = classify(s->message);
  }
  return n;
}

const char *gpsshim_message(const gpsshim_session *s, size_t *length) {
  if (s == NULL) {
    if (length != NULL) *length = 0;
    return "";
  }
  if (length != NULL) *length = s->message_length;
  return s->message;
}

void gpsshim_get_fix(const gpsshim_session *s, gpsshim_fix *out) {
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
  out->latitude = out->longitude = out->alt_hae = out->alt_msl = NAN;
  out->track = out->speed = out->climb = NAN;
  out->eph = out->epx = out->epy = out->epv = out->eps = out->ept = out->epd = NAN;
  if (s == NULL) return;
  const struct gps_fix_t *f = &s->data.fix;
  out->mode = f->mode;
#if GPSD_API_MAJOR_VERSION >= 10
  out->status = f->status;
#else
  out->status = s->data.status;
#endif
#if GPSD_API_MAJOR_VERSION >= 9
  out->time_sec = (int64_t)f->time.tv_sec;
  out->time_nsec = (int64_t)f->time.tv_nsec;
  out->alt_hae = f->altHAE;
  out->alt_msl = f->altMSL;
#else
  if (isfinite(f->time) && f->time > 0) {
    out->time_sec = (int64_t)floor(f->time);
    out->time_nsec = (int64_t)((f->time - floor(f->time)) * 1e9);
  }
  out->alt_msl = f->altitude;
#endif
  out->latitude = f->latitude;
  out->longitude = f->longitude;
  out->track = f->track;
  out->speed = f->speed;
  out->climb = f->climb;
  out->eph = f->eph;
  out->epx = f->epx;
  out->epy = f->epy;
  out->epv = f->epv;
  out->eps = f->eps;
  out->ept = f->ept;
  out->epd = f->epd;
  out->set = (uint64_t)s->data.set;
}

int gpsshim_fd(const gpsshim_session *s) {
  if (s == NULL) return -1;
  // int up to 3.25, intptr_t from 3.26.
  return (int)(intptr_t)s->data.gps_fd;
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

int gpsshim_read(gpsshim_session *s, gpsshim_kind *kind) {
  (void)s;
  if (kind != NULL) *kind = GPSSHIM_KIND_NONE;
  return -1;
}

const char *gpsshim_message(const gpsshim_session *s, size_t *length) {
  (void)s;
  if (length != NULL) *length = 0;
  return "";
}

void gpsshim_get_fix(const gpsshim_session *s, gpsshim_fix *out) {
  (void)s;
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
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
