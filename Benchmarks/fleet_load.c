/* A fleet of simulated vehicles and one dispatcher in one process, through libmosquitto (the
 * client library stepwised uses), for Scripts/fleet-bench.py and FleetClusterTests.
 *
 *   fleet_load --brokers HOST:PORT[,HOST:PORT...] --vehicles N --seconds S
 *              [--recording Benchmarks/fleet-recording.txt] [--rate 1] [--mqtt311]
 *              [--dispatcher-broker I] [--connect-rate 500] [--keepalive 30] [--drain 60]
 *              [--password-prefix pw-] [--dispatcher NAME:PASSWORD] [--prefix fl]
 *              [--connect-timeout 600]
 *
 * Vehicle i (id PREFIX%05d, user name the id, password PASSWORD-PREFIX + id) publishes what
 * `stepwised --mqtt` publishes, in its topic layout (stepwise/ID/online|state|events|progress),
 * QoS 1: the payloads are a real daemon's, recorded (fleet-recording.txt: one "events|progress|
 * state JSON" line per message, from a replay of Simulations/001-marais-drive with
 * --mqtt-progress-interval 1), with the vehicle's own "seq" and "boot" written in. Like the
 * daemon: a persistent session (clean session off; under MQTT 5 a 7-day session expiry and a
 * 300 s message expiry on progress), the retained online message after each connect and the
 * will {"online":false}; messages are made at their time whether or not the link is up, and
 * handed to libmosquitto, oldest first, only while connected and at most 20 unacknowledged
 * (what libmosquitto had on the wire when the link broke it sends again on the next
 * connection): the daemon's journal, kept in memory here (the disk is not what this measures);
 * the retained state, while connected, 1 s after what it covers (one per burst). With several brokers (a cluster's nodes) vehicle i connects first to broker
 * i mod B; after any failure each retry goes to the next broker, after 1, 2, 4 ... 30 s, each
 * shortened by a random part of up to a half, as stepwised's client does.
 *
 * Every vehicle publishes RATE messages a second on events/progress (the recording's order),
 * vehicle i at i/N of the second: all vehicles run on one thread (epoll, each client driven by
 * mosquitto_loop_read/write/misc). Connecting happens first (CONNECT-RATE a second); the S
 * seconds of publishing start once every vehicle and the dispatcher are connected. When that
 * has not happened after CONNECT-TIMEOUT seconds it prints "not_connected=K of N connected
 * after T s" and exits with status 2.
 *
 * The dispatcher, on its own thread and connection (to broker I, default the last; after a
 * failure, to the next one), is a durable subscriber (client id the dispatcher's name, clean
 * session off, QoS 1) to stepwise/+/online, state, events and progress, as `stepwise fleet`
 * is. For every events/progress message it finds the vehicle and seq, and so the time the
 * vehicle handed it to libmosquitto (CLOCK_MONOTONIC, same process): the delivery latency. After the S seconds it
 * waits up to DRAIN seconds for what is missing, then prints key=value lines:
 *   vehicles, sent, received, unique, duplicates, missing, out_of_order (a message that
 *   arrives after a later one of its vehicle), vehicles_incomplete, p50_ms, p90_ms, p99_ms,
 *   max_ms (over every message), connect_s (the connecting phase), link_losses (vehicles whose
 *   link broke during the run), failover_max_s / failover_p50_s (from a vehicle noticing its
 *   link broke to its next accepted CONNACK), outage_* (the latency of messages sent from 1 s
 *   before the first link broke until 5 s after the last came back: they wait by design, and
 *   steady_p50_ms / steady_p99_ms are the others), cpu_s (this process), and at the end
 *   result=ok when nothing is missing or out of order, else result=fail (exit status 1).
 *
 * SIGUSR1 prints a line "links_down=K" on stderr (how many vehicles are not connected now).
 *
 * Each libmosquitto client holds three descriptors (its socket and the socket pair that wakes
 * its loop, made at every connect), so one process holds at most a third of the open-files
 * hard limit in vehicles. Larger fleets run in several processes: --first K numbers this
 * process's vehicles from K, and --no-dispatcher leaves the dispatcher (and the report) to
 * one of them; such a process publishes until it is ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 20

typedef struct {
  char kind[12];   /* events, progress or state */
  char *head;      /* up to the seq number */
  char *middle;    /* from after the seq number up to the boot value */
  char *tail;      /* after the boot value */
  int has_boot;
} template_t;

typedef struct {
  struct mosquitto *m;
  int index, fd, broker, connected, failures, epoll_out;
  double retry_at, lost_at, connect_began, next_misc;
  uint32_t seq;      /* messages made (journalled) so far */
  uint32_t handed;   /* of those, handed to libmosquitto */
  int inflight[WINDOW], ninflight, state_due, state_cursor, pump_due;
  char id[32], boot[17];
  float *sent;           /* send time (s since start) per seq (1-based), for events/progress */
  _Atomic uint8_t *got;  /* per seq: received by the dispatcher */
  _Atomic uint32_t last; /* the dispatcher's last seq */
  uint32_t capacity;
} vehicle_t;

static struct {
  char hosts[8][64];
  int ports[8], brokers;
  int vehicles, seconds, mqtt311, dispatcher_broker, connect_rate, keepalive, drain, first;
  int no_dispatcher, connect_timeout;
  double rate;
  const char *recording, *password_prefix, *dispatcher_name, *dispatcher_password, *prefix;
} opt = {.vehicles = 10, .seconds = 10, .dispatcher_broker = -1, .connect_rate = 500,
         .keepalive = 30, .drain = 60, .connect_timeout = 600, .rate = 1, .password_prefix = "pw-",
         .dispatcher_name = "dispatcher", .dispatcher_password = "pw-dispatcher",
         .prefix = "fl", .recording = "Benchmarks/fleet-recording.txt"};

static template_t *stream, *states;
static int nstream, nstates;
static vehicle_t *fleet;
static int epfd;
static double t0;
static mosquitto_property *progress_props, *connect_props;
static _Atomic int dispatcher_ready, links_down_report;
static _Atomic long received, duplicates, out_of_order;
static float *latencies;
static _Atomic long nlatencies;
static float *latency_sent;
static int failover_count, link_losses;
static double *failover_s;
static double first_loss = -1, last_back = -1;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9 - t0;
}

static void die(const char *what) {
  fprintf(stderr, "fleet_load: %s\n", what);
  exit(2);
}

/* "seq":N and "boot":"X" of the top-level object are the first ones in a daemon's line. */
static void parse_template(template_t *t, char *kind, char *json) {
  snprintf(t->kind, sizeof t->kind, "%s", kind);
  char *s = strstr(json, "\"seq\":");
  if (!s) die("a recorded line without seq");
  s += 6;
  char *e = s;
  while (*e >= '0' && *e <= '9') e++;
  t->head = strndup(json, (size_t)(s - json));
  char *b = strstr(e, "\"boot\":\"");
  if (b) {
    b += 8;
    t->middle = strndup(e, (size_t)(b - e));
    /* every boot of the recording (a state repeats it inside) becomes %s: keep it simple by
     * splitting only at the first; the others stay the recorded boot, as a state's nested
     * route of an older boot would. */
    t->tail = strdup(b + 16);
    t->has_boot = 1;
  } else {
    t->middle = strdup(e);
    t->tail = strdup("");
  }
}

static void load_recording(void) {
  FILE *f = fopen(opt.recording, "r");
  if (!f) die("cannot open the recording");
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  stream = calloc(4096, sizeof *stream);
  states = calloc(4096, sizeof *states);
  while ((n = getline(&line, &cap, f)) > 0) {
    if (line[n - 1] == '\n') line[n - 1] = 0;
    char *sp = strchr(line, ' ');
    if (!sp) continue;
    *sp = 0;
    if (!strcmp(line, "state")) {
      if (nstates < 4096) parse_template(&states[nstates++], line, sp + 1);
    } else if (!strcmp(line, "events") || !strcmp(line, "progress")) {
      if (nstream < 4096) parse_template(&stream[nstream++], line, sp + 1);
    }
  }
  free(line);
  fclose(f);
  if (!nstream || !nstates) die("the recording has no events/progress or no state lines");
}

static int render(const template_t *t, uint32_t seq, const char *boot, char *out, size_t cap) {
  return snprintf(out, cap, "%s%u%s%s%s", t->head, seq, t->middle, t->has_boot ? boot : "",
                  t->tail);
}

static void epoll_update(vehicle_t *v) {
  if (v->fd < 0) return;
  int want = mosquitto_want_write(v->m);
  if (want == v->epoll_out) return;
  struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.u32 = v->index};
  epoll_ctl(epfd, EPOLL_CTL_MOD, v->fd, &ev);
  v->epoll_out = want;
}

static void link_lost(vehicle_t *v) {
  double t = now();
  if (v->fd >= 0) epoll_ctl(epfd, EPOLL_CTL_DEL, v->fd, NULL);
  v->fd = -1;
  if (v->connected) {
    v->lost_at = t;
    link_losses++;
    if (first_loss < 0) first_loss = t;
  }
  v->connected = 0;
  v->failures++;
  double delay = fmin(30, (double)(1u << (v->failures - 1 < 20 ? v->failures - 1 : 20)));
  v->retry_at = t + delay * (1 - 0.5 * drand48());
  if (opt.brokers > 1) v->broker = (v->broker + 1) % opt.brokers;
}

static void on_connect(struct mosquitto *m, void *obj, int rc, int flags,
                       const mosquitto_property *props) {
  (void)m, (void)flags, (void)props;
  vehicle_t *v = obj;
  if (rc != 0) {
    /* refused: the loop sees connected == 0 and a CONNACK, and retries */
    v->connect_began = -1;
    return;
  }
  v->connected = 1;
  v->failures = 0;
  v->connect_began = -1;
  if (v->lost_at >= 0) {
    double t = now();
    if (failover_count < opt.vehicles * 8) failover_s[failover_count++] = t - v->lost_at;
    v->lost_at = -1;
    if (t > last_back) last_back = t;
  }
  char online[96];
  int n = snprintf(online, sizeof online, "{\"online\":true,\"boot\":\"%s\",\"release\":\"0.1.0\"}",
                   v->boot);
  char topic[64];
  snprintf(topic, sizeof topic, "stepwise/%s/online", v->id);
  mosquitto_publish_v5(m, NULL, topic, n, online, 1, true, NULL);
  v->state_due = v->seq > 0;
  v->pump_due = 1;
}

static int connect_vehicle(vehicle_t *v) {
  v->connect_began = now();
  int rc = mosquitto_connect_bind_v5(v->m, opt.hosts[v->broker], opt.ports[v->broker],
                                     opt.keepalive, NULL, opt.mqtt311 ? NULL : connect_props);
  if (rc != MOSQ_ERR_SUCCESS) {
    v->connect_began = -1;
    link_lost(v); /* not a loss of the link (it was not up): only the next retry */
    return rc;
  }
  v->fd = mosquitto_socket(v->m);
  v->epoll_out = mosquitto_want_write(v->m);
  struct epoll_event ev = {.events = EPOLLIN | (v->epoll_out ? EPOLLOUT : 0), .data.u32 = v->index};
  epoll_ctl(epfd, EPOLL_CTL_ADD, v->fd, &ev);
  return 0;
}

/* Hands made messages to libmosquitto while connected, within the window; the state first
 * when one is due. */
static void pump(vehicle_t *v) {
  static char buf[65536];
  char topic[64];
  if (!v->connected) return;
  if (v->state_due) {
    const template_t *t = &states[v->state_cursor++ % nstates];
    int n = render(t, v->seq, v->boot, buf, sizeof buf);
    snprintf(topic, sizeof topic, "stepwise/%s/state", v->id);
    mosquitto_publish_v5(v->m, NULL, topic, n, buf, 1, true, NULL);
    v->state_due = 0;
  }
  while (v->handed < v->seq && v->ninflight < WINDOW) {
    uint32_t seq = ++v->handed;
    const template_t *t = &stream[(seq - 1) % (uint32_t)nstream];
    int n = render(t, seq, v->boot, buf, sizeof buf);
    snprintf(topic, sizeof topic, "stepwise/%s/%s", v->id, t->kind);
    int progress = t->kind[0] == 'p';
    int mid = 0;
    int rc = mosquitto_publish_v5(v->m, &mid, topic, n, buf, 1, false,
                                  progress && !opt.mqtt311 ? progress_props : NULL);
    /* NO_CONN: libmosquitto keeps it and sends it on the next connection */
    if (rc == MOSQ_ERR_SUCCESS || rc == MOSQ_ERR_NO_CONN) v->inflight[v->ninflight++] = mid;
  }
}

/* The vehicle's next message is made (the daemon journals an event or a progress). */
static void make_next(vehicle_t *v) {
  if (v->seq + 1 >= v->capacity) return;
  v->seq++;
  v->sent[v->seq] = (float)now();
  v->state_due = 1;
  pump(v);
}

static void on_publish(struct mosquitto *m, void *obj, int mid, int rc,
                       const mosquitto_property *props) {
  (void)m, (void)rc, (void)props;
  vehicle_t *v = obj;
  for (int k = 0; k < v->ninflight; k++) {
    if (v->inflight[k] == mid) {
      v->inflight[k] = v->inflight[--v->ninflight];
      v->pump_due = 1;
      return;
    }
  }
}

static void service(vehicle_t *v, uint32_t events) {
  int rc = MOSQ_ERR_SUCCESS;
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) rc = mosquitto_loop_read(v->m, 64);
  if (rc == MOSQ_ERR_SUCCESS && (events & EPOLLOUT)) rc = mosquitto_loop_write(v->m, 64);
  if (rc != MOSQ_ERR_SUCCESS || mosquitto_socket(v->m) != v->fd) {
    link_lost(v);
    return;
  }
  if (v->pump_due) {
    v->pump_due = 0;
    pump(v);
    if (mosquitto_want_write(v->m) && mosquitto_loop_write(v->m, 64) != MOSQ_ERR_SUCCESS) {
      link_lost(v);
      return;
    }
  }
  epoll_update(v);
}

/* ---- the dispatcher ---- */

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg,
                       const mosquitto_property *props) {
  (void)m, (void)obj, (void)props;
  double t = now();
  const char *topic = msg->topic;
  size_t plen = strlen(opt.prefix);
  if (strncmp(topic, "stepwise/", 9) || strncmp(topic + 9, opt.prefix, plen)) return;
  const char *num = topic + 9 + plen;
  char *slash;
  long i = strtol(num, &slash, 10);
  i -= opt.first;
  if (*slash != '/' || i < 0 || i >= opt.vehicles) return;
  const char *kind = slash + 1;
  if (strcmp(kind, "events") && strcmp(kind, "progress")) return;
  const char *s = memmem(msg->payload, (size_t)msg->payloadlen, "\"seq\":", 6);
  if (!s) return;
  uint32_t seq = (uint32_t)strtoul(s + 6, NULL, 10);
  vehicle_t *v = &fleet[i];
  /* dedupe is by (vehicle, boot, seq): another boot's message (a durable session's leftover
   * from an earlier run) is not this run's */
  const char *b = memmem(msg->payload, (size_t)msg->payloadlen, "\"boot\":\"", 8);
  if (!b || (const char *)msg->payload + msg->payloadlen - b < 24 || memcmp(b + 8, v->boot, 16))
    return;
  if (seq == 0 || seq >= v->capacity) return;
  received++;
  if (atomic_exchange(&v->got[seq], 1)) {
    duplicates++;
    return;
  }
  if (seq < v->last) out_of_order++;
  else v->last = seq;
  long k = nlatencies++;
  float sent = v->sent[seq];
  latencies[k] = (float)((t - sent) * 1000);
  latency_sent[k] = sent;
}

static void on_dispatcher_connect(struct mosquitto *m, void *obj, int rc, int flags,
                                  const mosquitto_property *props) {
  (void)obj, (void)flags, (void)props;
  if (rc) return;
  const char *topics[] = {"stepwise/+/online", "stepwise/+/state", "stepwise/+/events",
                          "stepwise/+/progress"};
  for (int k = 0; k < 4; k++) mosquitto_subscribe(m, NULL, topics[k], 1);
  dispatcher_ready = 1;
}

/* Connects the dispatcher to broker b, with the session's properties (under MQTT 5 the
 * session expiry, which libmosquitto's mosquitto_reconnect leaves out: the session would then
 * end with that connection). */
static int connect_dispatcher(struct mosquitto *m, int b) {
  return mosquitto_connect_bind_v5(m, opt.hosts[b], opt.ports[b], 30, NULL,
                                   opt.mqtt311 ? NULL : connect_props);
}

static _Atomic int dispatcher_closing;

/* The dispatcher's own network thread, not mosquitto_loop_start's: libmosquitto's loop
 * (mosquitto_loop) waits with select(), and gives up with MOSQ_ERR_INVAL on a descriptor at or
 * above FD_SETSIZE (1024), which mosquitto_loop_forever takes as fatal and ends the thread in
 * silence. The dispatcher's first socket is made before the vehicles', but the one its
 * reconnect makes comes after three descriptors per vehicle: with 1,000 vehicles it is above
 * 3,000, and the dispatcher never came back after a broker restart (it did with 300). Here the
 * wait is poll(), and every failure is retried after half a second on the next broker of the
 * list, with the session's properties (mosquitto_reconnect would leave them out). */
static void *dispatcher_loop(void *arg) {
  struct mosquitto *m = arg;
  int b = opt.dispatcher_broker < 0 ? opt.brokers - 1 : opt.dispatcher_broker;
  int up = 1;
  while (!dispatcher_closing) {
    if (!up) {
      usleep(500000);
      b = (b + 1) % opt.brokers;
      up = connect_dispatcher(m, b) == MOSQ_ERR_SUCCESS;
      continue;
    }
    struct pollfd p = {.fd = mosquitto_socket(m),
                       .events = POLLIN | (mosquitto_want_write(m) ? POLLOUT : 0)};
    int rc = MOSQ_ERR_SUCCESS;
    if (p.fd >= 0 && poll(&p, 1, 100) > 0 && (p.revents & (POLLIN | POLLERR | POLLHUP)))
      rc = mosquitto_loop_read(m, 1);
    if (rc == MOSQ_ERR_SUCCESS && mosquitto_socket(m) >= 0 && mosquitto_want_write(m))
      rc = mosquitto_loop_write(m, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_misc(m);
    if (rc != MOSQ_ERR_SUCCESS || mosquitto_socket(m) < 0) up = 0;
  }
  return NULL;
}

static void on_session_ended(struct mosquitto *m, void *obj, int rc, int flags,
                             const mosquitto_property *props) {
  (void)m, (void)rc, (void)flags, (void)props;
  *(int *)obj = 1;
}

/* Ends the dispatcher's durable session, and what it still holds: a clean-session connect
 * (waiting up to 60 s for the CONNACK: RabbitMQ deletes the queue first). Done before the run,
 * so that nothing of an earlier run (one that failed before its end) reaches this run's
 * dispatcher ahead of its own messages, and after it. poll(), not mosquitto_loop: the socket
 * may be above FD_SETSIZE. */
static void end_dispatcher_session(void) {
  int answered = 0;
  struct mosquitto *m = mosquitto_new(opt.dispatcher_name, true, &answered);
  if (!m) die("mosquitto_new");
  mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION,
                       opt.mqtt311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5);
  mosquitto_username_pw_set(m, opt.dispatcher_name, opt.dispatcher_password);
  mosquitto_connect_v5_callback_set(m, on_session_ended);
  int b = opt.dispatcher_broker < 0 ? opt.brokers - 1 : opt.dispatcher_broker;
  if (mosquitto_connect(m, opt.hosts[b], opt.ports[b], 30) == MOSQ_ERR_SUCCESS) {
    double end = now() + 60;
    while (!answered && now() < end && mosquitto_socket(m) >= 0) {
      struct pollfd p = {.fd = mosquitto_socket(m),
                         .events = POLLIN | (mosquitto_want_write(m) ? POLLOUT : 0)};
      if (poll(&p, 1, 100) > 0 && mosquitto_loop_read(m, 1) != MOSQ_ERR_SUCCESS) break;
      if (mosquitto_want_write(m) && mosquitto_loop_write(m, 1) != MOSQ_ERR_SUCCESS) break;
    }
    mosquitto_disconnect(m);
    if (mosquitto_socket(m) >= 0) mosquitto_loop_write(m, 1);
  }
  mosquitto_destroy(m);
}

static struct mosquitto *start_dispatcher(pthread_t *thread) {
  end_dispatcher_session();
  struct mosquitto *m = mosquitto_new(opt.dispatcher_name, false, NULL);
  if (!m) die("mosquitto_new");
  mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION,
                       opt.mqtt311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5);
  mosquitto_username_pw_set(m, opt.dispatcher_name, opt.dispatcher_password);
  mosquitto_connect_v5_callback_set(m, on_dispatcher_connect);
  mosquitto_message_v5_callback_set(m, on_message);
  int b = opt.dispatcher_broker < 0 ? opt.brokers - 1 : opt.dispatcher_broker;
  while (connect_dispatcher(m, b) != 0) {
    if (now() > 60) die("the dispatcher cannot connect");
    usleep(500000);
  }
  if (pthread_create(thread, NULL, dispatcher_loop, m)) die("pthread_create");
  return m;
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static double pct(float *sorted, long n, double p) {
  if (n == 0) return NAN;
  long k = (long)llround(p / 100.0 * (double)(n - 1));
  return sorted[k];
}

static void on_usr1(int sig) {
  (void)sig;
  links_down_report = 1;
}

static void parse_brokers(char *list) {
  for (char *tok = strtok(list, ","); tok && opt.brokers < 8; tok = strtok(NULL, ",")) {
    char *colon = strrchr(tok, ':');
    if (!colon) die("--brokers HOST:PORT,...");
    *colon = 0;
    snprintf(opt.hosts[opt.brokers], 64, "%s", tok);
    opt.ports[opt.brokers++] = atoi(colon + 1);
  }
}

int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k];
    const char *val = k + 1 < argc ? argv[k + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && val && ++k)
    if (ARG("--brokers")) parse_brokers(strdup(val));
    else if (ARG("--vehicles")) opt.vehicles = atoi(val);
    else if (ARG("--seconds")) opt.seconds = atoi(val);
    else if (ARG("--rate")) opt.rate = atof(val);
    else if (ARG("--recording")) opt.recording = val;
    else if (ARG("--dispatcher-broker")) opt.dispatcher_broker = atoi(val);
    else if (ARG("--connect-rate")) opt.connect_rate = atoi(val);
    else if (ARG("--keepalive")) opt.keepalive = atoi(val);
    else if (ARG("--drain")) opt.drain = atoi(val);
    else if (ARG("--connect-timeout")) opt.connect_timeout = atoi(val);
    else if (ARG("--password-prefix")) opt.password_prefix = val;
    else if (ARG("--prefix")) opt.prefix = val;
    else if (ARG("--first")) opt.first = atoi(val);
    else if (ARG("--dispatcher")) {
      char *c = strdup(val), *colon = strchr(c, ':');
      if (!colon) die("--dispatcher NAME:PASSWORD");
      *colon = 0;
      opt.dispatcher_name = c;
      opt.dispatcher_password = colon + 1;
    } else if (!strcmp(a, "--mqtt311")) opt.mqtt311 = 1;
    else if (!strcmp(a, "--no-dispatcher")) opt.no_dispatcher = 1;
    else {
      fprintf(stderr, "fleet_load: unknown or incomplete option %s\n", a);
      return 2;
    }
  }
  if (opt.brokers == 0 || opt.vehicles < 1 || opt.seconds < 1 || opt.rate <= 0)
    die("usage: fleet_load --brokers HOST:PORT[,...] --vehicles N --seconds S [options]");
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  rlim_t need = 3 * (rlim_t)opt.vehicles + 256;
  if (rl.rlim_cur < need) {
    rl.rlim_cur = need;
    if (rl.rlim_max < need) rl.rlim_max = need;
    if (setrlimit(RLIMIT_NOFILE, &rl)) {
      /* raising the hard limit needs CAP_SYS_RESOURCE: the soft one up to it, then */
      getrlimit(RLIMIT_NOFILE, &rl);
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_NOFILE, &rl);
      if (rl.rlim_cur < need) die("the open-files limit is too low for N vehicles (ulimit -Hn)");
    }
  }
  t0 = 0;
  t0 = now();
  srand48(getpid());
  load_recording();
  signal(SIGUSR1, on_usr1);
  mosquitto_lib_init();
  mosquitto_property_add_int32(&progress_props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, 300);
  mosquitto_property_add_int32(&connect_props, MQTT_PROP_SESSION_EXPIRY_INTERVAL, 7 * 86400);

  uint32_t capacity = (uint32_t)(opt.seconds * opt.rate) + 16;
  long total = (long)opt.vehicles * capacity;
  latencies = calloc((size_t)total, sizeof(float));
  latency_sent = calloc((size_t)total, sizeof(float));
  failover_s = calloc((size_t)opt.vehicles * 8, sizeof(double));
  fleet = calloc((size_t)opt.vehicles, sizeof *fleet);
  epfd = epoll_create1(EPOLL_CLOEXEC);
  if (!latencies || !latency_sent || !fleet || !failover_s) die("out of memory");

  pthread_t dispatcher_thread;
  struct mosquitto *dispatcher = opt.no_dispatcher ? NULL : start_dispatcher(&dispatcher_thread);
  if (opt.no_dispatcher) dispatcher_ready = 1;
  while (!dispatcher_ready) {
    if (now() > 60) die("the dispatcher was not accepted");
    usleep(10000);
  }
  /* the subscriptions' SUBACKs: a moment, before any vehicle publishes */
  usleep(500000);

  char password[128];
  for (int i = 0; i < opt.vehicles; i++) {
    vehicle_t *v = &fleet[i];
    v->index = i;
    v->fd = -1;
    v->lost_at = -1;
    v->connect_began = -1;
    v->broker = i % opt.brokers;
    v->capacity = capacity;
    v->sent = calloc(capacity, sizeof(float));
    v->got = calloc(capacity, 1);
    snprintf(v->id, sizeof v->id, "%s%05d", opt.prefix, opt.first + i);
    snprintf(v->boot, sizeof v->boot, "%08lx%08lx", (unsigned long)lrand48(),
             (unsigned long)lrand48());
    v->m = mosquitto_new(v->id, false, v);
    if (!v->m) die("mosquitto_new");
    mosquitto_int_option(v->m, MOSQ_OPT_PROTOCOL_VERSION,
                         opt.mqtt311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5);
    mosquitto_int_option(v->m, MOSQ_OPT_SEND_MAXIMUM, WINDOW);
    mosquitto_int_option(v->m, MOSQ_OPT_TCP_NODELAY, 1);
    snprintf(password, sizeof password, "%s%s", opt.password_prefix, v->id);
    mosquitto_username_pw_set(v->m, v->id, password);
    char topic[64];
    snprintf(topic, sizeof topic, "stepwise/%s/online", v->id);
    mosquitto_will_set(v->m, topic, 16, "{\"online\":false}", 1, true);
    mosquitto_connect_v5_callback_set(v->m, on_connect);
    mosquitto_publish_v5_callback_set(v->m, on_publish);
  }

  struct epoll_event evs[256];
  double start_connect = now();
  int next_connect = 0;
  int up = 0;
  double run_start = -1, run_end = -1, drain_end = -1;
  long sent_total = 0;
  double tick = 1.0 / opt.rate;
  /* publishing slot: vehicle i's k-th message at run_start + k*tick + i*tick/N */
  long slot = 0;
  long slots_total = (long)(opt.seconds * opt.rate) * opt.vehicles;
  int done = 0;
  while (!done) {
    double t = now();
    /* connecting phase, CONNECT-RATE a second */
    while (next_connect < opt.vehicles &&
           next_connect < (int)((t - start_connect) * opt.connect_rate) + 1) {
      connect_vehicle(&fleet[next_connect++]);
    }
    if (run_start < 0 && next_connect == opt.vehicles) {
      up = 0;
      for (int i = 0; i < opt.vehicles; i++) up += fleet[i].connected;
      if (up == opt.vehicles) {
        run_start = now();
        printf("connect_s=%.2f\n", run_start - start_connect);
        fflush(stdout);
        fprintf(stderr, "fleet_load: %d vehicles connected in %.1f s; publishing for %d s\n",
                opt.vehicles, run_start - start_connect, opt.seconds);
        failover_count = 0;
        link_losses = 0;
        first_loss = last_back = -1;
        for (int i = 0; i < opt.vehicles; i++) fleet[i].lost_at = -1;
      } else if (t - start_connect > opt.connect_timeout) {
        /* the caller reads this line where it waits for connect_s= */
        printf("not_connected=%d of %d connected after %d s\n", up, opt.vehicles,
               opt.connect_timeout);
        fflush(stdout);
        die("the fleet did not connect in time");
      }
    }
    if (run_start >= 0 && slot < slots_total) {
      while (slot < slots_total) {
        long k = slot / opt.vehicles;
        int i = (int)(slot % opt.vehicles);
        double due = run_start + (double)k * tick + (double)i * tick / opt.vehicles;
        if (due > t) break;
        vehicle_t *v = &fleet[i];
        make_next(v);
        sent_total++;
        if (v->fd >= 0) {
          if (mosquitto_want_write(v->m) && mosquitto_loop_write(v->m, 64) != MOSQ_ERR_SUCCESS)
            link_lost(v);
          else
            epoll_update(v);
        }
        slot++;
      }
      if (slot == slots_total) {
        run_end = now();
        drain_end = run_end + opt.drain;
      }
    }
    /* retries, CONNACK time-outs and keepalives */
    for (int i = 0; i < next_connect; i++) {
      vehicle_t *v = &fleet[i];
      if (v->fd < 0) {
        if (t >= v->retry_at) connect_vehicle(v);
        continue;
      }
      if (!v->connected && v->connect_began >= 0 && t - v->connect_began > 10) {
        link_lost(v); /* no CONNACK within 10 s */
        continue;
      }
      if (!v->connected && v->connect_began < 0) {
        link_lost(v); /* a refused CONNACK */
        continue;
      }
      if (t >= v->next_misc) {
        v->next_misc = t + 1;
        if (mosquitto_loop_misc(v->m) != MOSQ_ERR_SUCCESS || mosquitto_socket(v->m) != v->fd) {
          link_lost(v);
          continue;
        }
        epoll_update(v);
      }
    }
    if (links_down_report) {
      links_down_report = 0;
      int down = 0;
      for (int i = 0; i < opt.vehicles; i++) down += !fleet[i].connected;
      fprintf(stderr, "links_down=%d\n", down);
    }
    if (drain_end >= 0) {
      long expected = sent_total;
      if (opt.no_dispatcher) drain_end = now() + 1e9; /* runs until ended (SIGTERM) */
      if (nlatencies >= expected || now() > drain_end) done = 1;
    }
    int timeout = 2;
    if (run_start >= 0 && slot < slots_total) {
      long k = slot / opt.vehicles;
      int i = (int)(slot % opt.vehicles);
      double due = run_start + (double)k * tick + (double)i * tick / opt.vehicles;
      double wait = (due - now()) * 1000;
      timeout = wait < 0 ? 0 : (wait > 2 ? 2 : (int)wait);
    }
    int n = epoll_wait(epfd, evs, 256, timeout);
    for (int k = 0; k < n; k++) {
      vehicle_t *v = &fleet[evs[k].data.u32];
      if (v->fd >= 0) service(v, evs[k].events);
    }
  }

  /* the report */
  long unique = nlatencies;
  long missing = sent_total - unique;
  int incomplete = 0;
  for (int i = 0; i < opt.vehicles; i++) {
    for (uint32_t s = 1; s <= fleet[i].seq && s < fleet[i].capacity; s++) {
      if (!fleet[i].got[s]) {
        incomplete++;
        break;
      }
    }
  }
  double lo = first_loss >= 0 ? first_loss - 1 : -1, hi = last_back >= 0 ? last_back + 5 : -1;
  if (first_loss >= 0 && last_back < 0) hi = 1e9;
  float *steady = malloc(sizeof(float) * (size_t)(unique + 1));
  float *outage = malloc(sizeof(float) * (size_t)(unique + 1));
  long ns = 0, no = 0;
  for (long k = 0; k < unique; k++) {
    if (lo >= 0 && latency_sent[k] >= lo && latency_sent[k] <= hi) outage[no++] = latencies[k];
    else steady[ns++] = latencies[k];
  }
  qsort(latencies, (size_t)unique, sizeof(float), cmp_float);
  qsort(steady, (size_t)ns, sizeof(float), cmp_float);
  qsort(outage, (size_t)no, sizeof(float), cmp_float);
  double fmax = 0, fsum = 0;
  for (int k = 0; k < failover_count; k++) {
    if (failover_s[k] > fmax) fmax = failover_s[k];
    fsum += failover_s[k];
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("vehicles=%d\nseconds=%d\nrate=%g\nsent=%ld\nreceived=%ld\nunique=%ld\nduplicates=%ld\n"
         "missing=%ld\nout_of_order=%ld\nvehicles_incomplete=%d\n",
         opt.vehicles, opt.seconds, opt.rate, sent_total, (long)received, unique,
         (long)duplicates, missing, (long)out_of_order, incomplete);
  printf("p50_ms=%.1f\np90_ms=%.1f\np99_ms=%.1f\nmax_ms=%.1f\n", pct(latencies, unique, 50),
         pct(latencies, unique, 90), pct(latencies, unique, 99),
         unique ? latencies[unique - 1] : NAN);
  printf("steady_p50_ms=%.1f\nsteady_p99_ms=%.1f\noutage_messages=%ld\noutage_p50_ms=%.1f\n"
         "outage_max_ms=%.1f\n",
         pct(steady, ns, 50), pct(steady, ns, 99), no, pct(outage, no, 50),
         no ? outage[no - 1] : NAN);
  printf("link_losses=%d\nfailovers=%d\nfailover_max_s=%.2f\nfailover_mean_s=%.2f\n", link_losses,
         failover_count, fmax, failover_count ? fsum / failover_count : NAN);
  printf("cpu_s=%.1f\n", ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
                             (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
  int ok = missing == 0 && out_of_order == 0 && link_losses == failover_count;
  printf("result=%s\n", ok ? "ok" : "fail");
  fflush(stdout);
  for (int i = 0; i < opt.vehicles; i++) {
    if (fleet[i].fd >= 0) mosquitto_disconnect(fleet[i].m);
  }
  if (dispatcher) {
    dispatcher_closing = 1;
    pthread_join(dispatcher_thread, NULL);
    mosquitto_disconnect(dispatcher);
    if (mosquitto_socket(dispatcher) >= 0) mosquitto_loop_write(dispatcher, 1);
    mosquitto_destroy(dispatcher);
    end_dispatcher_session();
  }
  return ok ? 0 : 1;
}
