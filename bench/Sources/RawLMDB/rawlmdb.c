#include "RawLMDB.h"

#include <errno.h>
#include <lmdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct rawlmdb_store {
    MDB_env *env;
    MDB_dbi log, objects, meta, views;
    unsigned char *filler;     // value bytes (ViewLog copies its encoded bytes; so do we)
    size_t filler_bytes;
};

rawlmdb_store *rawlmdb_create(const char *dir, size_t map_size_bytes, int durable) {
    if (mkdir(dir, 0700) != 0) return NULL;
    rawlmdb_store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (mdb_env_create(&s->env) != 0) goto fail;
    mdb_env_set_maxdbs(s->env, 8);
    mdb_env_set_mapsize(s->env, map_size_bytes);
    unsigned flags = MDB_NOTLS | (durable ? 0 : MDB_NOSYNC);
    if (mdb_env_open(s->env, dir, flags, 0600) != 0) goto fail_env;
    MDB_txn *txn;
    if (mdb_txn_begin(s->env, NULL, 0, &txn) != 0) goto fail_env;
    if (mdb_dbi_open(txn, "log", MDB_CREATE, &s->log) != 0 ||
        mdb_dbi_open(txn, "objects", MDB_CREATE, &s->objects) != 0 ||
        mdb_dbi_open(txn, "meta", MDB_CREATE, &s->meta) != 0 ||
        mdb_dbi_open(txn, "views", MDB_CREATE, &s->views) != 0) {
        mdb_txn_abort(txn);
        goto fail_env;
    }
    if (mdb_txn_commit(txn) != 0) goto fail_env;
    s->filler_bytes = 1 << 16;
    s->filler = malloc(s->filler_bytes);
    if (!s->filler) goto fail_env;
    for (size_t i = 0; i < s->filler_bytes; i++) s->filler[i] = (unsigned char)(i * 131 + 7);
    return s;
fail_env:
    mdb_env_close(s->env);
fail:
    free(s);
    return NULL;
}

void rawlmdb_close(rawlmdb_store *s) {
    if (!s) return;
    mdb_env_close(s->env);
    free(s->filler);
    free(s);
}

// A value of `n` bytes: the filler, grown when a value is larger (a 10,000-change log entry is ~1 MB).
static int value_of(rawlmdb_store *s, size_t n, MDB_val *v) {
    if (n > s->filler_bytes) {
        size_t c = s->filler_bytes;
        while (c < n) c *= 2;
        unsigned char *bigger = realloc(s->filler, c);
        if (!bigger) return ENOMEM;
        for (size_t i = s->filler_bytes; i < c; i++) bigger[i] = (unsigned char)(i * 131 + 7);
        s->filler = bigger;
        s->filler_bytes = c;
    }
    v->mv_size = n;
    v->mv_data = s->filler;
    return 0;
}

static void big_endian(uint64_t x, unsigned char out[8]) {
    for (int i = 7; i >= 0; i--) { out[i] = (unsigned char)(x & 0xFF); x >>= 8; }
}

// The puts of `rawlmdb_append` in `txn`: log entries, object rows, meta head.
static int append_puts(rawlmdb_store *s, MDB_txn *txn, uint64_t first_seq, size_t log_entries,
                       const uint32_t *log_value_bytes, size_t object_count, const uint8_t *object_keys,
                       const uint32_t *object_key_bytes, const uint32_t *object_value_bytes) {
    int rc;
    unsigned char seq_key[8];
    MDB_val k, v;
    for (size_t i = 0; i < log_entries; i++) {
        big_endian(first_seq + i, seq_key);
        k.mv_size = 8;
        k.mv_data = seq_key;
        if ((rc = value_of(s, log_value_bytes[i], &v)) != 0) return rc;
        if ((rc = mdb_put(txn, s->log, &k, &v, MDB_APPEND)) != 0) return rc;
    }
    const uint8_t *key = object_keys;
    for (size_t i = 0; i < object_count; i++) {
        k.mv_size = object_key_bytes[i];
        k.mv_data = (void *)key;
        key += object_key_bytes[i];
        if ((rc = value_of(s, object_value_bytes[i], &v)) != 0) return rc;
        if ((rc = mdb_put(txn, s->objects, &k, &v, 0)) != 0) return rc;
    }
    unsigned char head[8];
    big_endian(first_seq + log_entries - 1, head);
    k.mv_size = 4;
    k.mv_data = "head";
    v.mv_size = 8;
    v.mv_data = head;
    return mdb_put(txn, s->meta, &k, &v, 0);
}

int rawlmdb_append(rawlmdb_store *s, uint64_t first_seq, size_t log_entries, const uint32_t *log_value_bytes,
                   size_t object_count, const uint8_t *object_keys, const uint32_t *object_key_bytes,
                   const uint32_t *object_value_bytes) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc != 0) return rc;
    rc = append_puts(s, txn, first_seq, log_entries, log_value_bytes, object_count, object_keys, object_key_bytes,
                     object_value_bytes);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

int rawlmdb_append_indexed(rawlmdb_store *s, uint64_t first_seq, size_t log_entries, const uint32_t *log_value_bytes,
                           size_t object_count, const uint8_t *object_keys, const uint32_t *object_key_bytes,
                           const uint32_t *object_value_bytes, size_t index_key_count, const uint8_t *index_keys,
                           const uint32_t *index_key_bytes) {
    MDB_txn *txn;
    MDB_cursor *cursor = NULL;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc != 0) return rc;
    rc = append_puts(s, txn, first_seq, log_entries, log_value_bytes, object_count, object_keys, object_key_bytes,
                     object_value_bytes);
    if (rc != 0 || index_key_count == 0) goto done;
    // One cursor for all the rows, as ViewLog's sequential puts: a key on the last put's leaf skips the descent.
    if ((rc = mdb_cursor_open(txn, s->views, &cursor)) != 0) goto done;
    // The value of a row: ViewLog's is a CRC-32C of the key; any 4 bytes cost LMDB the same.
    unsigned char crc[4] = {0x5a, 0x17, 0xc3, 0x08};
    MDB_val k, v;
    const uint8_t *key = index_keys;
    for (size_t i = 0; i < index_key_count; i++) {
        k.mv_size = index_key_bytes[i];
        k.mv_data = (void *)key;
        key += index_key_bytes[i];
        v.mv_size = sizeof crc;
        v.mv_data = crc;
        if ((rc = mdb_cursor_put(cursor, &k, &v, 0)) != 0) goto done;
    }
    mdb_cursor_close(cursor);
    cursor = NULL;
    // The views' maintained record: key 00 00, the head and a CRC.
    unsigned char maintained[12] = {0};
    big_endian(first_seq + log_entries - 1, maintained);
    k.mv_size = 2;
    k.mv_data = "\0\0";
    v.mv_size = sizeof maintained;
    v.mv_data = maintained;
    rc = mdb_put(txn, s->views, &k, &v, 0);
done:
    if (cursor) mdb_cursor_close(cursor);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

// The pages the last committed write of `env` freed, read in `txn`. The free list (dbi 0) holds one record per
// write that freed pages: key = the write's transaction id, value = their count, then the page numbers.
static int last_txn_freed_pages(MDB_env *env, MDB_txn *txn, size_t *freed) {
    MDB_cursor *cursor;
    MDB_envinfo info;
    mdb_env_info(env, &info);
    size_t id = info.me_last_txnid;
    MDB_val k = {sizeof id, &id}, v;
    *freed = 0;
    int rc = mdb_cursor_open(txn, 0, &cursor);
    if (rc != 0) return rc;
    rc = mdb_cursor_get(cursor, &k, &v, MDB_SET);
    if (rc == 0 && v.mv_size >= sizeof(size_t)) memcpy(freed, v.mv_data, sizeof *freed);
    if (rc == MDB_NOTFOUND) rc = 0;
    mdb_cursor_close(cursor);
    return rc;
}

int rawlmdb_last_txn_freed_pages(rawlmdb_store *s, size_t *freed) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) return rc;
    rc = last_txn_freed_pages(s->env, txn, freed);
    mdb_txn_abort(txn);
    return rc;
}

int rawlmdb_views_stat(rawlmdb_store *s, size_t *entries, size_t *leaf_pages, size_t *branch_pages, size_t *depth) {
    MDB_txn *txn;
    MDB_stat st;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) return rc;
    if ((rc = mdb_stat(txn, s->views, &st)) == 0) {
        *entries = st.ms_entries;
        *leaf_pages = st.ms_leaf_pages;
        *branch_pages = st.ms_branch_pages;
        *depth = st.ms_depth;
    }
    mdb_txn_abort(txn);
    return rc;
}

int rawlmdb_dir_db_stat(const char *dir, const char *name, size_t *entries, size_t *leaf_pages, size_t *branch_pages,
                        size_t *last_freed) {
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_stat st;
    int rc = mdb_env_create(&env);
    if (rc != 0) return rc;
    mdb_env_set_maxdbs(env, 32);
    if ((rc = mdb_env_open(env, dir, MDB_RDONLY | MDB_NOTLS, 0600)) != 0) goto close;
    if ((rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) != 0) goto close;
    *entries = *leaf_pages = *branch_pages = 0;
    rc = mdb_dbi_open(txn, name, 0, &dbi);
    if (rc == 0 && (rc = mdb_stat(txn, dbi, &st)) == 0) {
        *entries = st.ms_entries;
        *leaf_pages = st.ms_leaf_pages;
        *branch_pages = st.ms_branch_pages;
    }
    if (rc == 0 || rc == MDB_NOTFOUND) rc = last_txn_freed_pages(env, txn, last_freed);  // no such database: empty
    mdb_txn_abort(txn);
close:
    mdb_env_close(env);
    return rc;
}

size_t rawlmdb_used_bytes(rawlmdb_store *s) {
    MDB_envinfo info;
    MDB_stat st;
    mdb_env_info(s->env, &info);
    mdb_env_stat(s->env, &st);
    return (size_t)(info.me_last_pgno + 1) * st.ms_psize;
}

#if defined(__GLIBC__)
#include <malloc.h>
#endif

size_t rawlmdb_heap_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#else
    return 0;
#endif
}
