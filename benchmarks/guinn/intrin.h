#pragma once
#include <stdint.h>
inline unsigned char _BitScanForward(unsigned long* index, uint32_t mask) { if (!mask) return 0; *index = __builtin_ctz(mask); return 1; }
inline unsigned char _BitScanReverse(unsigned long* index, uint32_t mask) { if (!mask) return 0; *index = 31 - __builtin_clz(mask); return 1; }
inline unsigned char _BitScanForward64(unsigned long* index, uint64_t mask) { if (!mask) return 0; *index = __builtin_ctzll(mask); return 1; }
inline unsigned char _BitScanReverse64(unsigned long* index, uint64_t mask) { if (!mask) return 0; *index = 63 - __builtin_clzll(mask); return 1; }
