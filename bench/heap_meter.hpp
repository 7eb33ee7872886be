#pragma once
// Peak heap use of a call, measured: the benchmark links with
// -Wl,--wrap=malloc,free,calloc,realloc,posix_memalign,aligned_alloc, so every
// allocation made by code linked statically (attnlab's library, Eigen's inline
// code, the benchmark) passes through heap_meter.cpp. Allocations inside shared
// libraries (libgomp's thread stacks, libstdc++) are not seen.
#include <cstddef>

namespace attn::bench {

/// Starts a measurement: the peak is reset to the bytes live now.
void heap_reset_peak();
/// Bytes live now, and the most live since heap_reset_peak().
std::size_t heap_live();
std::size_t heap_peak();

}  // namespace attn::bench
