/*
 * One reader process of `Benchmarks/fanout.py live` (the default one; `FANOUT_READER=python`
 * uses fanout.py's own `read` instead, as a cross-check).
 *
 *   fanout_reader SOCKET N OUT
 *
 * Connects N subscribers to SOCKET, prints `ready` once each has had its STATE, then waits on
 * all of them with one epoll set until standard input closes. Each recv is stamped with
 * CLOCK_MONOTONIC right after it returns, before its bytes are looked at; every PROGRESS line
 * it completes is written to OUT as `TIME MONO INDEX` (TIME: the event's own `time`, MONO:
 * seconds) when the run is over. Lines are split per subscriber, so a line cut across two
 * recvs counts at the recv that completed it, as in fanout.py's reader.
 *
 * Why C: fanout.py's reader spends a few microseconds of Python per recv, so with 500
 * subscribers on one CPU its own speed would set the spread between the first and the last
 * subscriber; here a recv and its stamp cost the system call and little else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum { RECV_BYTES = 1 << 16, LINE_BYTES = 1 << 16, TIME_BYTES = 24, BATCH = 512 };

struct subscriber {
  int fd;
  int ready;  /* has had its STATE */
  size_t held; /* bytes of an unfinished line in `line` */
  char *line;
};

struct record {
  char time[TIME_BYTES];
  double mono;
  int index;
};

static struct record *records;
static size_t nrecords, crecords;

static void die(const char *what) {
  fprintf(stderr, "fanout_reader: %s: %s\n", what, strerror(errno));
  exit(1);
}

static double monotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_one(const char *path, double deadline) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path) {
    errno = ENAMETOOLONG;
    die(path);
  }
  strcpy(a.sun_path, path);
  for (;;) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    close(fd);
    if (monotonic() > deadline) die("connect");
    usleep(50000);
  }
}

/* One complete line of subscriber `i`, received at `mono`. */
static int line_done(struct subscriber *s, int i, const char *p, size_t n, double mono, int live) {
  static const char progress[] = "\"class\":\"PROGRESS\"";
  static const char key[] = "\"time\":\"";
  if (!live) {
    if (memmem(p, n, "\"STATE\"", 7)) s->ready = 1;
    return 0;
  }
  if (!memmem(p, n, progress, sizeof progress - 1)) return 0;
  const char *t = memmem(p, n, key, sizeof key - 1);
  if (!t || (size_t)(t - p) + sizeof key - 1 + TIME_BYTES > n) return 0;
  if (nrecords == crecords) {
    crecords = crecords ? crecords * 2 : 1 << 16;
    records = realloc(records, crecords * sizeof *records);
    if (!records) die("realloc");
  }
  struct record *r = &records[nrecords++];
  memcpy(r->time, t + sizeof key - 1, TIME_BYTES);
  r->mono = mono;
  r->index = i;
  return 1;
}

static void feed(struct subscriber *s, int i, const char *p, size_t n, double mono, int live) {
  while (n > 0) {
    const char *nl = memchr(p, '\n', n);
    size_t take = nl ? (size_t)(nl - p) : n;
    if (s->held + take > LINE_BYTES) {
      /* Longer than any event line: keep its head only. */
      take = take < LINE_BYTES - s->held ? take : LINE_BYTES - s->held;
    }
    if (nl && s->held == 0) {
      line_done(s, i, p, take, mono, live);
    } else {
      memcpy(s->line + s->held, p, take);
      s->held += take;
      if (nl) {
        line_done(s, i, s->line, s->held, mono, live);
        s->held = 0;
      }
    }
    if (!nl) return;
    size_t used = (size_t)(nl - p) + 1;
    p += used;
    n -= used;
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: fanout_reader SOCKET N OUT\n");
    return 2;
  }
  const char *path = argv[1];
  int n = atoi(argv[2]);
  const char *out = argv[3];
  if (n <= 0) return 2;
  struct subscriber *subs = calloc((size_t)n, sizeof *subs);
  char *buf = malloc(RECV_BYTES);
  if (!subs || !buf) die("calloc");
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) die("epoll_create1");
  double deadline = monotonic() + 30;
  for (int i = 0; i < n; i++) {
    subs[i].fd = connect_one(path, deadline);
    subs[i].line = malloc(LINE_BYTES);
    if (!subs[i].line) die("malloc");
    struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, subs[i].fd, &e) < 0) die("epoll_ctl");
  }
  struct epoll_event in = {.events = EPOLLIN, .data.u32 = (uint32_t)n};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &in) < 0) die("epoll_ctl stdin");
  int live = 0, readyCount = 0, stop = 0;
  struct epoll_event events[BATCH];
  while (!stop) {
    int k = epoll_wait(ep, events, BATCH, live ? -1 : 1000);
    if (k < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    for (int j = 0; j < k; j++) {
      uint32_t i = events[j].data.u32;
      if (i == (uint32_t)n) {
        stop = 1;
        continue;
      }
      struct subscriber *s = &subs[i];
      ssize_t got = recv(s->fd, buf, RECV_BYTES, MSG_DONTWAIT);
      double mono = monotonic();
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
        continue;
      }
      int was = s->ready;
      feed(s, (int)i, buf, (size_t)got, mono, live);
      if (!was && s->ready) readyCount++;
    }
    if (!live && readyCount == n) {
      printf("ready\n");
      fflush(stdout);
      live = 1;
    }
  }
  FILE *f = fopen(out, "w");
  if (!f) die(out);
  for (size_t r = 0; r < nrecords; r++) {
    fprintf(f, "%.*s %.6f %d\n", TIME_BYTES, records[r].time, records[r].mono, records[r].index);
  }
  if (fclose(f) != 0) die(out);
  return 0;
}
