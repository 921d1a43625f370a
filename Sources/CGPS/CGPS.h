// libgps, the gpsd client library (Debian: libgps-dev). Only the GPSShim C target includes this;
// Swift code never sees `struct gps_data_t` (see Sources/GPSShim).
#include <gps.h>
