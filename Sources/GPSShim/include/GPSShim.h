// GPSShim: a small C layer over libgps with plain C types only.
//
// libgps opens the connection to gpsd, sends ?WATCH and closes it; the shim hands Swift each
// line gpsd sends, raw, and Swift decodes it once (libgps does not unpack it: GPSShim.c).
// Swift never sees `struct gps_data_t`: its size and layout change between gpsd releases
// (24 KB in 3.22, 38 KB in 3.26, 49 KB in master), and so do a few signatures. Every such
// difference is handled in GPSShim.c. This header deliberately does not include <gps.h>.
//
// A session is confined to one thread or serial queue at a time: libgps is not thread-safe.
#ifndef GPSSHIM_H
#define GPSSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open connection to gpsd: a heap-allocated `struct gps_data_t` plus line buffers.
typedef struct gpsshim_session gpsshim_session;

/// Whether the shim was compiled against <gps.h> (false: every call fails).
bool gpsshim_available(void);

/// libgps's `GPSD_API_MAJOR_VERSION` at compile time (0 without libgps).
int gpsshim_api_major(void);

/// libgps's `GPSD_API_MINOR_VERSION` at compile time.
int gpsshim_api_minor(void);

/// Connects to gpsd at `host`:`port` (NULL: localhost, 2947). Returns NULL on failure with
/// the libgps netlib code (negative) or an errno value (positive) in `*error`.
gpsshim_session *gpsshim_open(const char *host, const char *port, int *error);

/// Sends `?WATCH` with JSON reports enabled (or disabled), for one `device` when not NULL.
/// Returns 0 on success, or an errno value.
int gpsshim_watch(gpsshim_session *session, bool enable, const char *device);

/// Whether a whole line is buffered or the socket is readable within `timeout_us` microseconds
/// (rounded up to milliseconds). False both on timeout and on error (end of stream counts as
/// readable).
bool gpsshim_waiting(gpsshim_session *session, int timeout_us);

/// Takes the next line gpsd sent, reading the socket once when no whole line is buffered.
/// Returns -1 at end of stream (errno 0) or on a read error (errno set), 0 when only part of a
/// line has arrived, or the line's length in bytes, newline included.
int gpsshim_read(gpsshim_session *session);

/// The line the last `gpsshim_read` returned, NUL-terminated, as gpsd sent it.
const char *gpsshim_message(const gpsshim_session *session, size_t *length);

/// The socket's file descriptor.
int gpsshim_fd(const gpsshim_session *session);

/// Text for an error code from `gpsshim_open` (netlib codes are negative).
const char *gpsshim_errstr(int error);

/// Closes the connection and frees the session (also after a failed read). NULL is ignored.
void gpsshim_close(gpsshim_session *session);

#ifdef __cplusplus
}
#endif

#endif
