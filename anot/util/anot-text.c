/* anot-text.c: what anot-text-private.h does not inline
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-text-private.h"

#if ANOT_JSON_SKIP_PLAIN_AVX2
#include <immintrin.h>

/* anot_json_skip_plain_full() 32 bytes at a time, for the processors that
 * have AVX2: the text of a review is hundreds of bytes without anything
 * to look at.  Stops at the byte that is one, or with fewer than 32 left. */
__attribute__ ((target ("avx2"))) const char *
_anot_json_skip_plain_avx2 (const char *p,
                            const char *end,
                            gboolean    ascii_only,
                            gboolean    no_del)
{
  while (end - p >= 32)
    {
      __m256i v = _mm256_loadu_si256 ((const __m256i *) (gconstpointer) p);
      __m256i stop;
      unsigned int mask;

      /* As the SSE2 loop: signed, v + 1 is below 0x21 for 0x00-0x1f, DEL
       * and every byte above 127; unsigned, min (v, 0x1f) is v for
       * 0x00-0x1f only. */
      if (ascii_only)
        stop = _mm256_cmpgt_epi8 (_mm256_set1_epi8 (0x21), _mm256_add_epi8 (v, _mm256_set1_epi8 (1)));
      else
        stop = _mm256_cmpeq_epi8 (_mm256_min_epu8 (v, _mm256_set1_epi8 (0x1f)), v);
      stop = _mm256_or_si256 (stop, _mm256_or_si256 (_mm256_cmpeq_epi8 (v, _mm256_set1_epi8 ('"')),
                                                     _mm256_cmpeq_epi8 (v, _mm256_set1_epi8 ('\\'))));
      if (no_del)
        stop = _mm256_or_si256 (stop, _mm256_cmpeq_epi8 (v, _mm256_set1_epi8 (0x7f)));
      mask = (unsigned int) _mm256_movemask_epi8 (stop);
      if (mask != 0)
        return p + __builtin_ctz (mask);
      p += 32;
    }
  return p;
}
#endif
