#ifndef VIEWLOG_CPREFETCH_H
#define VIEWLOG_CPREFETCH_H

/// Asks the CPU to bring the cache line at `address` in, for writing, without waiting for it (a hint: it never
/// faults, so any address is safe). Swift has no prefetch of its own; this inlines into the caller.
///
/// A fold of random changes waits on two cache misses per change (the row's index entry, then its values): issued
/// for a batch of changes before any is applied, the misses overlap instead of queueing one after the other.
static inline __attribute__((always_inline)) void viewlog_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
