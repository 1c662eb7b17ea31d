#ifndef CNATS_H
#define CNATS_H
// The NATS C client's API (Debian's libnats-dev), loaded at run time: the `viewlog` CLI and every other program that
// links ViewLogReplication start without libnats and OpenSSL, and load them on the first replication connection.
// The functions ViewLogReplication calls are defined in trampolines.c under their own names, each calling the
// library's function found by dlsym. Only the ViewLogReplication target imports this module.
#include <nats/nats.h>

/// Loads the NATS C client library (libnats.so.MAJOR.MINOR of the headers built against) once. Returns 0 when it is
/// loaded; otherwise -1, and `*reason` (when not NULL) points to a static text saying why. Thread-safe. Every other
/// function of this module may be called only after it returned 0.
int cnats_load(const char **reason);

#endif
