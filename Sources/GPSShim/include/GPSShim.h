// GPSShim: a small C layer over libgps with plain C types only.
//
// Swift never sees `struct gps_data_t`: its size and layout change between gpsd releases
// (24 KB in 3.22, 38 KB in 3.26, 49 KB in master), and so do a few signatures and names. Every
// such difference is handled in GPSShim.c. This header deliberately does not include <gps.h>.
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

/// An open connection to gpsd: a heap-allocated `struct gps_data_t` plus a message buffer.
typedef struct gpsshim_session gpsshim_session;

/// The class of the report that `gpsshim_read` just unpacked.
typedef enum {
  GPSSHIM_KIND_NONE = 0,
  GPSSHIM_KIND_TPV = 1,
  GPSSHIM_KIND_SKY = 2,
  GPSSHIM_KIND_OTHER = 3,
} gpsshim_kind;

/// The fix status, numbered like gpsd's JSON `status` (the shim's own names: libgps renamed
/// `STATUS_FIX` to `STATUS_GPS` in 3.23.1).
typedef enum {
  GPSSHIM_STATUS_UNKNOWN = 0,
  GPSSHIM_STATUS_GPS = 1,
  GPSSHIM_STATUS_DGPS = 2,
  GPSSHIM_STATUS_RTK_FIXED = 3,
  GPSSHIM_STATUS_RTK_FLOAT = 4,
  GPSSHIM_STATUS_DEAD_RECKONING = 5,
  GPSSHIM_STATUS_GNSS_DEAD_RECKONING = 6,
  GPSSHIM_STATUS_TIME_ONLY = 7,
  GPSSHIM_STATUS_SIMULATED = 8,
  GPSSHIM_STATUS_PY = 9,
} gpsshim_status;

/// The last fix libgps accumulated, flattened. Doubles are NaN when absent; `time_sec` and
/// `time_nsec` are both 0 when the fix has no time.
typedef struct {
  int mode;           // 0 not seen, 1 no fix, 2 = 2D, 3 = 3D
  int status;         // gpsshim_status
  int64_t time_sec;   // UTC, seconds since 1970
  int64_t time_nsec;
  double latitude, longitude;        // degrees
  double alt_hae, alt_msl;           // metres
  double track;                      // degrees clockwise from true north
  double speed, climb;               // metres per second
  double eph, epx, epy, epv;         // metres, 95 % confidence
  double eps;                        // metres per second, 95 %
  double ept;                        // seconds, 95 %
  double epd;                        // degrees, 95 %
  uint64_t set;                      // libgps's `set` mask after the last read
} gpsshim_fix;

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

/// Whether data is buffered or the socket is readable within `timeout_us` microseconds.
/// False both on timeout and on error (end of stream counts as readable).
bool gpsshim_waiting(gpsshim_session *session, int timeout_us);

/// Reads and unpacks one report. Returns -1 at end of stream or on error, 0 when only part of
/// a line is buffered, or the number of bytes consumed; `*kind` says which class was unpacked.
int gpsshim_read(gpsshim_session *session, gpsshim_kind *kind);

/// The raw JSON line of the last report `gpsshim_read` unpacked, NUL-terminated.
const char *gpsshim_message(const gpsshim_session *session, size_t *length);

/// Copies the accumulated fix into `out`.
void gpsshim_get_fix(const gpsshim_session *session, gpsshim_fix *out);

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
