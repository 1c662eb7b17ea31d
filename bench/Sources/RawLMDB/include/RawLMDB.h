// The raw-LMDB peer of ViewLog's append (DESIGN §8): the same puts, with the same keys and value sizes, and
// nothing else — no encoding, no reads, no checks. What ViewLog costs beyond this is ViewLog's own work.
#ifndef RAWLMDB_H
#define RAWLMDB_H

#include <stddef.h>
#include <stdint.h>

/// An LMDB environment with the named databases of a ViewLog store: log, objects, meta, views.
typedef struct rawlmdb_store rawlmdb_store;

/// Creates the directory `dir` (must not exist) and opens an environment in it with ViewLog's flags
/// (MDB_NOTLS, and MDB_NOSYNC unless `durable`). Returns NULL on failure.
rawlmdb_store *rawlmdb_create(const char *dir, size_t map_size_bytes, int durable);

/// Closes the environment.
void rawlmdb_close(rawlmdb_store *store);

/// One LMDB write transaction doing exactly the puts of one ViewLog append:
/// - `log_entries` log entries: key = 8-byte big-endian seq (first_seq, first_seq + 1, …), value of
///   `log_value_bytes[i]` bytes, put with MDB_APPEND;
/// - `object_count` object rows: key = `object_key_bytes[i]` bytes taken in turn from `object_keys`, value of
///   `object_value_bytes[i]` bytes (keys in ascending order, as ViewLog writes them);
/// - the meta head: key "head", 8-byte value.
/// Returns 0 or an LMDB error code.
int rawlmdb_append(rawlmdb_store *store, uint64_t first_seq, size_t log_entries, const uint32_t *log_value_bytes,
                   size_t object_count, const uint8_t *object_keys, const uint32_t *object_key_bytes,
                   const uint32_t *object_value_bytes);

/// `rawlmdb_append`'s puts, then in the same transaction the rows of stored views, as ViewLog keeps them in its
/// `views` database (schema/log-format.md, "Stored views"): `index_key_count` keys taken in turn from `index_keys`
/// (`index_key_bytes[i]` bytes each: the view's prefix, then the row key), put in the order given through one
/// cursor, each with a 4-byte value; then, when there are any, the maintained record (key `00 00`, 12 bytes).
/// Returns 0 or an LMDB error code.
int rawlmdb_append_indexed(rawlmdb_store *store, uint64_t first_seq, size_t log_entries,
                           const uint32_t *log_value_bytes, size_t object_count, const uint8_t *object_keys,
                           const uint32_t *object_key_bytes, const uint32_t *object_value_bytes,
                           size_t index_key_count, const uint8_t *index_keys, const uint32_t *index_key_bytes);

/// Sets `*freed` to the pages the last committed write transaction freed: the old copies of the pages it
/// rewrote (copy on write), read from LMDB's free list. Returns 0 or an LMDB error code.
int rawlmdb_last_txn_freed_pages(rawlmdb_store *store, size_t *freed);

/// The `views` database's entries, leaf and branch pages, and depth. Returns 0 or an LMDB error code.
int rawlmdb_views_stat(rawlmdb_store *store, size_t *entries, size_t *leaf_pages, size_t *branch_pages,
                       size_t *depth);

/// Opens the environment in `dir` read-only (not open elsewhere in this process: LMDB allows one per process),
/// reads the named database `name`'s entries, leaf and branch pages and the pages the last write freed (as
/// `rawlmdb_last_txn_freed_pages`), and closes it;
/// a database that does not exist counts as empty. Returns 0 or an LMDB error code.
int rawlmdb_dir_db_stat(const char *dir, const char *name, size_t *entries, size_t *leaf_pages, size_t *branch_pages,
                        size_t *last_freed);

/// Bytes LMDB uses in the data file (last page number × page size).
size_t rawlmdb_used_bytes(rawlmdb_store *store);



/// Bytes the C heap holds in use (glibc's mallinfo2: small and mmapped blocks); 0 where unknown.
size_t rawlmdb_heap_bytes_in_use(void);
#endif
