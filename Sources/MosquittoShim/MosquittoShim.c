#include "MosquittoShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <mosquitto.h>

// The library's soname: libmosquitto 1.x and 2.x.
static const char library_name[] = "libmosquitto.so.1";

// Each forwarded function: its return type, its result without the library, its name, its
// parameters and its arguments.
#define MOSQUITTO_FUNCTIONS(F, V)                                                              \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_lib_init, (void), ())                               \
  F(struct mosquitto *, NULL, mosquitto_new, (const char *id, bool clean_session, void *obj),  \
    (id, clean_session, obj))                                                                  \
  V(mosquitto_destroy, (struct mosquitto * mosq), (mosq))                                     \
  V(mosquitto_user_data_set, (struct mosquitto * mosq, void *obj), (mosq, obj))               \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_int_option,                                         \
    (struct mosquitto * mosq, enum mosq_opt_t option, int value), (mosq, option, value))      \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_will_set,                                           \
    (struct mosquitto * mosq, const char *topic, int payloadlen, const void *payload, int qos, \
     bool retain),                                                                             \
    (mosq, topic, payloadlen, payload, qos, retain))                                          \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_will_set_v5,                                        \
    (struct mosquitto * mosq, const char *topic, int payloadlen, const void *payload, int qos, \
     bool retain, mosquitto_property *properties),                                             \
    (mosq, topic, payloadlen, payload, qos, retain, properties))                              \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_username_pw_set,                                    \
    (struct mosquitto * mosq, const char *username, const char *password),                    \
    (mosq, username, password))                                                                \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_tls_set,                                            \
    (struct mosquitto * mosq, const char *cafile, const char *capath, const char *certfile,   \
     const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)), \
    (mosq, cafile, capath, certfile, keyfile, pw_callback))                                   \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_threaded_set,                                       \
    (struct mosquitto * mosq, bool threaded), (mosq, threaded))                               \
  V(mosquitto_connect_v5_callback_set,                                                         \
    (struct mosquitto * mosq,                                                                  \
     void (*on_connect)(struct mosquitto *, void *, int, int, const mosquitto_property *)),   \
    (mosq, on_connect))                                                                        \
  V(mosquitto_disconnect_v5_callback_set,                                                      \
    (struct mosquitto * mosq,                                                                  \
     void (*on_disconnect)(struct mosquitto *, void *, int, const mosquitto_property *)),     \
    (mosq, on_disconnect))                                                                     \
  V(mosquitto_publish_v5_callback_set,                                                         \
    (struct mosquitto * mosq,                                                                  \
     void (*on_publish)(struct mosquitto *, void *, int, int, const mosquitto_property *)),   \
    (mosq, on_publish))                                                                        \
  V(mosquitto_message_v5_callback_set,                                                         \
    (struct mosquitto * mosq,                                                                  \
     void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *,         \
                        const mosquitto_property *)),                                          \
    (mosq, on_message))                                                                        \
  V(mosquitto_log_callback_set,                                                                \
    (struct mosquitto * mosq, void (*on_log)(struct mosquitto *, void *, int, const char *)), \
    (mosq, on_log))                                                                            \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_property_add_int32,                                 \
    (mosquitto_property * *proplist, int identifier, uint32_t value),                         \
    (proplist, identifier, value))                                                             \
  V(mosquitto_property_free_all, (mosquitto_property * *properties), (properties))            \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_connect_bind_v5,                                    \
    (struct mosquitto * mosq, const char *host, int port, int keepalive,                      \
     const char *bind_address, const mosquitto_property *properties),                         \
    (mosq, host, port, keepalive, bind_address, properties))                                  \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_loop,                                               \
    (struct mosquitto * mosq, int timeout, int max_packets), (mosq, timeout, max_packets))    \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_loop_start, (struct mosquitto * mosq), (mosq))     \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_reconnect, (struct mosquitto * mosq), (mosq))      \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_publish_v5,                                         \
    (struct mosquitto * mosq, int *mid, const char *topic, int payloadlen, const void *payload, \
     int qos, bool retain, const mosquitto_property *properties),                             \
    (mosq, mid, topic, payloadlen, payload, qos, retain, properties))                         \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_subscribe_v5,                                       \
    (struct mosquitto * mosq, int *mid, const char *sub, int qos, int options,                \
     const mosquitto_property *properties),                                                    \
    (mosq, mid, sub, qos, options, properties))                                               \
  F(int, MOSQ_ERR_NOT_SUPPORTED, mosquitto_disconnect_v5,                                      \
    (struct mosquitto * mosq, int reason_code, const mosquitto_property *properties),         \
    (mosq, reason_code, properties))                                                           \
  F(const char *, "libmosquitto.so.1 cannot be loaded", mosquitto_reason_string,              \
    (int reason_code), (reason_code))                                                          \
  F(const char *, "libmosquitto.so.1 cannot be loaded", mosquitto_strerror, (int mosq_errno), \
    (mosq_errno))

// The library's functions, resolved together once (pthread_once: no race between threads).
#define POINTER(ret, fail, name, params, args) ret(*name) params;
#define VOID_POINTER(name, params, args) void(*name) params;
static struct {
  MOSQUITTO_FUNCTIONS(POINTER, VOID_POINTER)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;

// OpenSSL (libmosquitto's TLS) frees its global state from an atexit handler. A client whose last
// reference was dropped on another thread while exit ran then freed its SSL context against that
// freed state: stepwised died of a SEGV in pthread_rwlock_unlock under SSL_CTX_free, from
// mosquitto_destroy on a Dispatch worker, as it ended (ThreadSanitizer, .ci/run on 167be93, the
// mqtts test). OPENSSL_INIT_NO_ATEXIT (OpenSSL 1.1.1b and later), asked before the library's
// first TLS use, leaves that state to the system at exit. Found through the library's own
// dependencies; without OpenSSL nothing is done.
static void keep_openssl_until_exit(void *library) {
  int (*init_crypto)(uint64_t, const void *) =
      (int (*)(uint64_t, const void *))dlsym(library, "OPENSSL_init_crypto");
  if (init_crypto != NULL) init_crypto(0x00080000ULL, NULL);
}

static void load(void) {
  void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) return;
  keep_openssl_until_exit(library);
  int ok = 1;
#define RESOLVE(ret, fail, name, params, args) \
  api.name = (ret(*) params)dlsym(library, #name); \
  ok = ok && api.name != NULL;
#define VOID_RESOLVE(name, params, args) \
  api.name = (void(*) params)dlsym(library, #name); \
  ok = ok && api.name != NULL;
  MOSQUITTO_FUNCTIONS(RESOLVE, VOID_RESOLVE)
  loaded = ok;
}

int mosquittoshim_available(void) {
  pthread_once(&once, load);
  return loaded;
}

#define FORWARD(ret, fail, name, params, args) \
  ret name params { return mosquittoshim_available() ? api.name args : fail; }
#define VOID_FORWARD(name, params, args) \
  void name params {                     \
    if (mosquittoshim_available()) api.name args; \
  }
MOSQUITTO_FUNCTIONS(FORWARD, VOID_FORWARD)
