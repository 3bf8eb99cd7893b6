/* stream_copy.h - copy with non-temporal (cache-bypassing) stores.
 *
 * For copies far larger than the caches: a normal store first reads the
 * destination line for ownership, a third more memory traffic than the copy
 * needs. Shared by the copy component and `harness calibrate`, so the
 * bandwidth peak and the yardstick kernel move bytes the same way. */
#ifndef COMPONENTS_STREAM_COPY_H
#define COMPONENTS_STREAM_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* dst and src must not overlap; any alignment (the head up to dst's next
 * 64-byte line and the tail are copied plainly). */
static inline void stream_copy(void *dst_, const void *src_, size_t n)
{
    char *dst = (char *)dst_;
    const char *src = (const char *)src_;
#if defined(__x86_64__)
    size_t head = (64 - ((uintptr_t)dst & 63)) & 63;
    if (head > n)
        head = n;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    _mm_sfence(); /* streaming stores are weakly ordered: publish them before returning */
    memcpy(dst + body, src + body, n - body);
#else
    memcpy(dst, src, n);
#endif
}

#endif
