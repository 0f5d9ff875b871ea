/* anot-visibility.h: which symbols libanot exports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(ANOT_INSIDE) && !defined(ANOT_COMPILATION)
#error "Only <anot/anot.h> can be included directly."
#endif

/* The library is built with hidden visibility: only what a public header
 * marks ANOT_AVAILABLE_IN_ALL is exported, so internal helpers cannot be
 * linked against by plugins or reached by accident (tests/check-exports.py
 * compares the exports with the GIR). */
#if defined(_WIN32) || defined(__CYGWIN__)
#  define _ANOT_EXTERN __declspec(dllexport) extern
#elif defined(__GNUC__)
#  define _ANOT_EXTERN __attribute__((visibility("default"))) extern
#else
#  define _ANOT_EXTERN extern
#endif

/**
 * ANOT_AVAILABLE_IN_ALL:
 *
 * Marks a function (or the `_get_type()` a `G_DECLARE_*` macro declares) as
 * part of libanot's public API, exported from the shared library.
 */
#define ANOT_AVAILABLE_IN_ALL _ANOT_EXTERN
