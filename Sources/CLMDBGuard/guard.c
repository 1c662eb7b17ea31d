// Containment of faults inside LMDB (see include/CLMDBGuard.h).
//
// How: a thread-local pointer to a sigjmp_buf is set for the length of one LMDB call. The SIGSEGV/SIGBUS
// handler jumps back to it when it is set; otherwise it hands the signal to the handler installed before it
// (or the default action), so faults anywhere else still crash as before. sigsetjmp does not save the
// signal mask (no system call per LMDB call); the handlers are installed with SA_NODEFER so the signal is
// not left blocked after the jump.
//
// Safety: the jump leaves only LMDB's own frames, which hold no locks while reading pages (a read
// transaction holds a reader slot, released by mdb_txn_abort; a write transaction holds the writer mutex,
// released by mdb_txn_abort). LMDB's in-transaction state (cursor stacks, dirty lists) may be half updated:
// the transaction must not be used again except to abort it. A fault inside malloc/free called by LMDB is
// not expected (they do not read the map) but would leave the allocator's lock held: we accept that risk
// against a certain crash.
#define _GNU_SOURCE
#include "CLMDBGuard.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

static _Thread_local sigjmp_buf *viewlog_guard_jump;
static struct sigaction viewlog_previous_segv, viewlog_previous_bus;
static pthread_once_t viewlog_guard_once = PTHREAD_ONCE_INIT;

static void viewlog_guard_handler(int sig, siginfo_t *info, void *context) {
    sigjmp_buf *jump = viewlog_guard_jump;
    if (jump) {
        viewlog_guard_jump = NULL;
        siglongjmp(*jump, 1);
    }
    struct sigaction *previous = sig == SIGBUS ? &viewlog_previous_bus : &viewlog_previous_segv;
    if ((previous->sa_flags & SA_SIGINFO) && previous->sa_sigaction) {
        previous->sa_sigaction(sig, info, context);
        return;
    }
    if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler) {
        previous->sa_handler(sig);
        return;
    }
    // Default action: reinstall it; returning re-executes the faulting instruction, which now kills us.
    signal(sig, SIG_DFL);
}

static void viewlog_guard_install_once(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = viewlog_guard_handler;
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &viewlog_previous_segv);
    sigaction(SIGBUS, &action, &viewlog_previous_bus);
}

void viewlog_guard_install(void) { pthread_once(&viewlog_guard_once, viewlog_guard_install_once); }

// Reads one byte of every page of a returned buffer, and its last byte, under the guard: a buffer that a
// damaged node places past the end of the file (SIGBUS) or outside the map (SIGSEGV) becomes MDB_CORRUPTED
// here instead of crashing the Swift code that decodes it. Pages read here are the ones the decoder reads next.
static void viewlog_probe(const MDB_val *val) {
    if (val == NULL || val->mv_size == 0) return;
    const volatile unsigned char *p = (const volatile unsigned char *)val->mv_data;
    unsigned char sink = 0;
    for (size_t i = 0; i < val->mv_size; i += 4096) sink ^= p[i];
    sink ^= p[val->mv_size - 1];
    (void)sink;
}

#define VIEWLOG_GUARDED(call)                      \
    sigjmp_buf jump;                               \
    sigjmp_buf *outer = viewlog_guard_jump;        \
    if (sigsetjmp(jump, 0)) {                      \
        viewlog_guard_jump = outer;                \
        return MDB_CORRUPTED;                      \
    }                                              \
    viewlog_guard_jump = &jump;                    \
    int rc = (call);                               \
    if (rc == 0) {                                 \
        viewlog_probe(probe_key);                  \
        viewlog_probe(probe_data);                 \
    }                                              \
    viewlog_guard_jump = outer;

int viewlog_guarded_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) {
    MDB_val *probe_key = NULL, *probe_data = data;
    VIEWLOG_GUARDED(mdb_get(txn, dbi, key, data))
    return rc;
}

int viewlog_guarded_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op) {
    MDB_val *probe_key = key, *probe_data = data;
    VIEWLOG_GUARDED(mdb_cursor_get(cursor, key, data, op))
    return rc;
}

int viewlog_guarded_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_put(txn, dbi, key, data, flags))
    return rc;
}

int viewlog_guarded_cursor_put(MDB_cursor *cursor, MDB_val *key, MDB_val *data, unsigned int flags) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_cursor_put(cursor, key, data, flags))
    return rc;
}

int viewlog_guarded_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_del(txn, dbi, key, NULL))
    return rc;
}

int viewlog_guarded_drop(MDB_txn *txn, MDB_dbi dbi, int del) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_drop(txn, dbi, del))
    return rc;
}

int viewlog_guarded_dbi_open(MDB_txn *txn, const char *name, unsigned int flags, MDB_dbi *dbi) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_dbi_open(txn, name, flags, dbi))
    return rc;
}

int viewlog_guarded_stat(MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_stat(txn, dbi, stat))
    return rc;
}

int viewlog_guarded_commit(MDB_txn *txn) {
    MDB_val *probe_key = NULL, *probe_data = NULL;
    VIEWLOG_GUARDED(mdb_txn_commit(txn))
    return rc;
}
