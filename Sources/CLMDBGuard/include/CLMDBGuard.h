#ifndef CLMDBGUARD_H
#define CLMDBGUARD_H
#include <lmdb.h>

/// LMDB calls run under a guard: a SIGSEGV or SIGBUS raised while the calling thread is inside one of these
/// (LMDB following a damaged page of the file) unwinds back to the call, which returns MDB_CORRUPTED. The
/// caller must then abandon the transaction (abort it). Every page of a returned key or value is read once
/// under the guard, so a buffer a damaged node places outside the file is MDB_CORRUPTED too.
/// See tools/RELIABILITY.md, "Damaged pages", for what this does and does not cover.

/// Installs the signal handlers (once per process; later calls do nothing).
void viewlog_guard_install(void);

int viewlog_guarded_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int viewlog_guarded_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op);
int viewlog_guarded_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags);
int viewlog_guarded_cursor_put(MDB_cursor *cursor, MDB_val *key, MDB_val *data, unsigned int flags);
int viewlog_guarded_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key);
int viewlog_guarded_drop(MDB_txn *txn, MDB_dbi dbi, int del);
int viewlog_guarded_dbi_open(MDB_txn *txn, const char *name, unsigned int flags, MDB_dbi *dbi);
int viewlog_guarded_stat(MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat);
int viewlog_guarded_commit(MDB_txn *txn);

#endif
