// MosquittoShim: libmosquitto's functions that the uplink calls, defined here and forwarded to
// the library, which is opened on first use instead of being linked. A daemon without --mqtt
// never loads libmosquitto, nor the OpenSSL it brings (about 1.8 MiB of resident memory;
// docs/notebook/profiling.md). Without the library every call fails: MOSQ_ERR_NOT_SUPPORTED, a NULL
// handle, and mosquitto_strerror saying that libmosquitto.so.1 cannot be loaded.
#pragma once

/// 1 when libmosquitto is loaded (loading it now if needed), 0 when it cannot be.
int mosquittoshim_available(void);
