#ifndef VIEWLOG_CPREFETCH_H
#define VIEWLOG_CPREFETCH_H

/// Asks the CPU to bring the cache line at `address` in, for writing, without waiting for it (a hint: it never
/// faults, so any address is safe). Swift has no prefetch of its own; this inlines into the caller.
///
/// A fold of random changes waits on cache misses (the row's index entry, then its values), and so does printing
/// a view's rows kept in another order: issued a few rows ahead, the misses overlap instead of queueing one after
/// the other.
static inline __attribute__((always_inline)) void viewlog_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
