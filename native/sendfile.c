/*
 * sendfile(2) for downloads (src/storage/sendfile.ts).
 *
 * Why: Node 20 has no sendfile. A download read its bytes into a buffer on libuv's thread pool and
 * wrote that buffer to the socket, two copies of every byte and a thread-pool round trip per
 * MiB; linx-server (Go) hands the kernel the file instead. This module does the same.
 *
 * How: each job gets its own duplicate of the socket's descriptor, so nothing Node does to its own
 * (a timeout that destroys the socket) can make this module write to a reused descriptor number.
 * The file's descriptor is handed over: the job closes it when it ends, on its thread, which saves
 * the download a duplicate and a close on libuv's thread pool. LOOPS background threads, each with
 * an epoll instance of its own, do the sendfile calls; jobs go to them in turn. A job sends what
 * the socket takes and, when the socket is full (EAGAIN), waits for EPOLLOUT. Reads of the file
 * that miss the page cache block one of those threads (the others go on), never the event loop.
 * A finished job is handed back to the event loop through a thread-safe function, which settles
 * its promise. cancel() (the response closed) ends a job that waits for room.
 *
 * API: start(socketFd, fileFd, offset, length) -> [promise, job]; cancel(job). Once start returns,
 * fileFd is the module's (closed when the job ends); when it throws, the caller still has it.
 * The promise resolves with the bytes sent (== length) or rejects with an Error whose `code` is the
 * errno name (EPIPE, ECONNRESET, ECANCELED, ...); a file shorter than offset + length rejects with
 * code "ESHORT".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <unistd.h>

#define ESHORT_CODE (-1)
/* Threads: a page-cache miss blocks one of them for a disk read; the others keep sending. */
#define LOOPS 4

struct loop;

typedef struct job {
  int sock;
  int file;
  off_t offset;
  size_t remaining;
  size_t sent;
  int err; /* 0, an errno, or ESHORT_CODE */
  int parked; /* registered in epoll (thread only) */
  int cancelled; /* set by the event loop, read by the thread (atomic) */
  int refs; /* the thread's and the JS handle's (atomic) */
  napi_deferred deferred;
  struct loop *loop;
  struct job *next; /* submission queue, or the thread's parked list */
  struct job *prev;
} job;

typedef struct loop {
  pthread_mutex_t lock;
  job *submitted; /* LIFO; order does not matter */
  int epfd;
  int wakefd;
  job *parked_head; /* this thread's only */
} loop_t;

static loop_t loops[LOOPS];
static unsigned next_loop = 0;
static napi_threadsafe_function done_fn = NULL;
static int started = 0;

static void job_unref(job *j) {
  if (__atomic_sub_fetch(&j->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    if (j->sock >= 0) close(j->sock);
    if (j->file >= 0) close(j->file);
    free(j);
  }
}

/* Thread: the job ends (sent, failed or cancelled); its descriptors close now. */
static void finish(job *j) {
  loop_t *l = j->loop;
  if (j->parked) {
    epoll_ctl(l->epfd, EPOLL_CTL_DEL, j->sock, NULL);
    j->parked = 0;
    if (j->prev) j->prev->next = j->next;
    else l->parked_head = j->next;
    if (j->next) j->next->prev = j->prev;
    j->next = j->prev = NULL;
  }
  close(j->sock);
  close(j->file);
  j->sock = j->file = -1;
  napi_call_threadsafe_function(done_fn, j, napi_tsfn_nonblocking);
}

/* Thread: sends until done, an error, or a full socket (then parks the job in epoll). */
static void pump(job *j) {
  loop_t *l = j->loop;
  while (j->remaining > 0) {
    if (__atomic_load_n(&j->cancelled, __ATOMIC_ACQUIRE)) {
      j->err = ECANCELED;
      finish(j);
      return;
    }
    size_t want = j->remaining > (1u << 30) ? (1u << 30) : j->remaining;
    ssize_t n = sendfile(j->sock, j->file, &j->offset, want);
    if (n > 0) {
      j->remaining -= (size_t)n;
      j->sent += (size_t)n;
      continue;
    }
    if (n == 0) {
      j->err = ESHORT_CODE;
      finish(j);
      return;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      struct epoll_event ev = {.events = EPOLLOUT | EPOLLONESHOT, .data.ptr = j};
      if (epoll_ctl(l->epfd, j->parked ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, j->sock, &ev) != 0) {
        j->err = errno;
        finish(j);
        return;
      }
      if (!j->parked) {
        j->parked = 1;
        j->prev = NULL;
        j->next = l->parked_head;
        if (l->parked_head) l->parked_head->prev = j;
        l->parked_head = j;
      }
      return;
    }
    j->err = errno;
    finish(j);
    return;
  }
  finish(j);
}

static void *run(void *arg) {
  loop_t *l = arg;
  struct epoll_event events[64];
  for (;;) {
    int n = epoll_wait(l->epfd, events, 64, -1);
    if (n < 0) continue; /* EINTR */
    for (int i = 0; i < n; i++) {
      if (events[i].data.ptr == NULL) {
        uint64_t count;
        if (read(l->wakefd, &count, sizeof count) < 0) { /* nothing to drain */
        }
        pthread_mutex_lock(&l->lock);
        job *list = l->submitted;
        l->submitted = NULL;
        pthread_mutex_unlock(&l->lock);
        while (list) {
          job *j = list;
          list = list->next;
          j->next = NULL;
          pump(j);
        }
        /* A cancel also wakes the thread: end the parked jobs it names. */
        for (job *j = l->parked_head; j;) {
          job *next = j->next;
          if (__atomic_load_n(&j->cancelled, __ATOMIC_ACQUIRE)) {
            j->err = ECANCELED;
            finish(j);
          }
          j = next;
        }
      } else {
        pump((job *)events[i].data.ptr);
      }
    }
  }
  return NULL;
}

static const char *code_of(int err) {
  switch (err) {
    case ESHORT_CODE: return "ESHORT";
    case EPIPE: return "EPIPE";
    case ECONNRESET: return "ECONNRESET";
    case ECANCELED: return "ECANCELED";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case EIO: return "EIO";
    case ENOMEM: return "ENOMEM";
    case ENOTCONN: return "ENOTCONN";
    default: return "EIO";
  }
}

/* Event loop: settles a finished job's promise. */
static void settle(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)context;
  job *j = data;
  if (env != NULL) {
    if (j->err == 0) {
      napi_value sent;
      napi_create_double(env, (double)j->sent, &sent);
      napi_resolve_deferred(env, j->deferred, sent);
    } else {
      const char *code = code_of(j->err);
      char message[160];
      if (j->err == ESHORT_CODE) snprintf(message, sizeof message, "sendfile: the file ended early");
      else snprintf(message, sizeof message, "sendfile: %s", strerror(j->err));
      napi_value msg, codev, error;
      napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
      napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &codev);
      napi_create_error(env, codev, msg, &error);
      napi_set_named_property(env, error, "code", codev);
      napi_reject_deferred(env, j->deferred, error);
    }
  }
  job_unref(j);
}

static void release_handle(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  job_unref((job *)data);
}

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

static int start_loop(loop_t *l) {
  pthread_mutex_init(&l->lock, NULL);
  l->submitted = l->parked_head = NULL;
  l->epfd = epoll_create1(EPOLL_CLOEXEC);
  l->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (l->epfd < 0 || l->wakefd < 0) return 0;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) != 0) return 0;
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  return pthread_create(&thread, &attr, run, l) == 0;
}

static int ensure_started(napi_env env) {
  if (started) return 1;
  napi_value name;
  napi_create_string_utf8(env, "agora-sendfile", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, settle, &done_fn) != napi_ok)
    return 0;
  /* Never keeps the process alive by itself: a job in flight has its socket, which does. */
  napi_unref_threadsafe_function(env, done_fn);
  for (int i = 0; i < LOOPS; i++)
    if (!start_loop(&loops[i])) return 0;
  started = 1;
  return 1;
}

static void wake(loop_t *l) {
  uint64_t one = 1;
  if (write(l->wakefd, &one, sizeof one) < 0) { /* the counter is already non-zero */
  }
}

/* start(socketFd, fileFd, offset, length) -> [promise, job] */
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 4) return throw_error(env, "start(socketFd, fileFd, offset, length)");
  int32_t sock, file;
  double offset, length;
  if (napi_get_value_int32(env, argv[0], &sock) != napi_ok || napi_get_value_int32(env, argv[1], &file) != napi_ok ||
      napi_get_value_double(env, argv[2], &offset) != napi_ok || napi_get_value_double(env, argv[3], &length) != napi_ok)
    return throw_error(env, "start: descriptors and positions must be numbers");
  if (sock < 0 || file < 0 || offset < 0 || length < 0) return throw_error(env, "start: negative argument");
  if (!ensure_started(env)) return throw_error(env, "sendfile: could not start its thread");

  job *j = calloc(1, sizeof *j);
  if (!j) return throw_error(env, "sendfile: out of memory");
  j->sock = fcntl(sock, F_DUPFD_CLOEXEC, 0);
  if (j->sock < 0) {
    free(j);
    return throw_error(env, "sendfile: could not duplicate a descriptor");
  }
  /* Nothing below fails: from here the file's descriptor is the job's. */
  j->file = file;
  j->offset = (off_t)offset;
  j->remaining = (size_t)length;
  j->refs = 2;
  j->loop = &loops[next_loop++ % LOOPS];

  napi_value promise, handle, pair;
  napi_create_promise(env, &j->deferred, &promise);
  napi_create_external(env, j, release_handle, NULL, &handle);
  napi_create_array_with_length(env, 2, &pair);
  napi_set_element(env, pair, 0, promise);
  napi_set_element(env, pair, 1, handle);

  loop_t *l = j->loop;
  pthread_mutex_lock(&l->lock);
  j->next = l->submitted;
  l->submitted = j;
  pthread_mutex_unlock(&l->lock);
  wake(l);
  return pair;
}

/* cancel(job): ends the job if it still waits for the socket (its promise rejects ECANCELED). */
static napi_value cancel(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *data = NULL;
  if (argc < 1 || napi_get_value_external(env, argv[0], &data) != napi_ok || data == NULL)
    return throw_error(env, "cancel(job)");
  job *j = data;
  __atomic_store_n(&j->cancelled, 1, __ATOMIC_RELEASE);
  wake(j->loop);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "start", NAPI_AUTO_LENGTH, start, NULL, &fn);
  napi_set_named_property(env, exports, "start", fn);
  napi_create_function(env, "cancel", NAPI_AUTO_LENGTH, cancel, NULL, &fn);
  napi_set_named_property(env, exports, "cancel", fn);
  return exports;
}
