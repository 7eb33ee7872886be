// See heap_meter.hpp: the --wrap hooks, counting malloc_usable_size bytes.
#include "heap_meter.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>

extern "C" {
void* __real_malloc(std::size_t);
void __real_free(void*);
void* __real_calloc(std::size_t, std::size_t);
void* __real_realloc(void*, std::size_t);
int __real_posix_memalign(void**, std::size_t, std::size_t);
void* __real_aligned_alloc(std::size_t, std::size_t);
}

namespace {
std::atomic<std::size_t> live{0}, peak{0};

void add(void* p) {
  if (!p) return;
  const std::size_t now = live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  std::size_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}
void sub(void* p) {
  if (p) live.fetch_sub(malloc_usable_size(p));
}
}  // namespace

extern "C" {
void* __wrap_malloc(std::size_t n) {
  void* p = __real_malloc(n);
  add(p);
  return p;
}
void __wrap_free(void* p) {
  sub(p);
  __real_free(p);
}
void* __wrap_calloc(std::size_t n, std::size_t s) {
  void* p = __real_calloc(n, s);
  add(p);
  return p;
}
void* __wrap_realloc(void* old, std::size_t n) {
  sub(old);
  void* p = __real_realloc(old, n);
  add(p ? p : (n ? old : nullptr));  // a failed realloc keeps the old block
  return p;
}
int __wrap_posix_memalign(void** out, std::size_t a, std::size_t n) {
  const int rc = __real_posix_memalign(out, a, n);
  if (rc == 0) add(*out);
  return rc;
}
void* __wrap_aligned_alloc(std::size_t a, std::size_t n) {
  void* p = __real_aligned_alloc(a, n);
  add(p);
  return p;
}
}

namespace attn::bench {
void heap_reset_peak() { peak.store(live.load()); }
std::size_t heap_live() { return live.load(); }
std::size_t heap_peak() { return peak.load(); }
}  // namespace attn::bench
