/* anot-seed.c: independent seeds derived from one base seed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "anot-seed.h"

static guint64
splitmix64 (guint64 x)
{
  x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return x ^ (x >> 31);
}

static guint64
fnv1a64 (const char *text)
{
  guint64 hash = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    {
      hash ^= *p;
      hash *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return hash;
}

/**
 * anot_seed_derive:
 * @seed: a base seed (e.g. the seed of a run)
 * @scope: (nullable): what the derived seed is for, e.g.
 *   `"shuffle:R07:10"`; %NULL is the same as `""`
 *
 * Derives an independent 64-bit seed for one purpose from a base seed.
 *
 * The value is `splitmix64 (splitmix64 (seed) XOR fnv1a64 (scope))`, where
 * fnv1a64 is the 64-bit FNV-1a hash of the UTF-8 bytes of @scope (offset
 * basis 0xcbf29ce484222325, prime 0x100000001b3) and splitmix64 is
 * Vigna's finaliser (add 0x9e3779b97f4a7c15, then xor-shift 30, multiply
 * by 0xbf58476d1ce4e5b9, xor-shift 27, multiply by 0x94d049bb133111eb,
 * xor-shift 31), all modulo 2^64.  It is stable across platforms and
 * releases, so seeds recorded in results stay meaningful.
 *
 * The experiment seeds each request's random choices with
 * `anot_seed_derive (run_seed, "<purpose>:<request id>:<N>")` (purposes
 * `pool`, `shuffle`, `method`) and builds a #GRand from the two 32-bit
 * halves (low word first) with g_rand_new_with_seed_array().
 *
 * Returns: the derived seed
 */
guint64
anot_seed_derive (guint64     seed,
                  const char *scope)
{
  return splitmix64 (splitmix64 (seed) ^ fnv1a64 (scope ? scope : ""));
}
