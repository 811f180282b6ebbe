// Every macro of drydb, in one place. The library needs no configuration
// macro: these are spellings of compiler attributes and one error-propagation
// helper.
#pragma once

// For the few read-path functions that must inline into the caller's loop
// even where the compiler's size heuristics would not (descent, in-page
// search). GCC and Clang spelling: the supported compilers are g++ >= 12 and
// clang >= 14.
#define DRYDB_ALWAYS_INLINE inline __attribute__((always_inline))

// The same for a lambda, written after its parameter list:
//   [&](const auto& search) DRYDB_ALWAYS_INLINE_LAMBDA { ... }
// Generic lambdas that a descent hands its search to would otherwise be
// called out of line once both of their instantiations exist.
#define DRYDB_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))

// Propagates an error from an expression yielding a drydb::result.
#define DRYDB_TRY(expr)                                                  \
  do {                                                                   \
    auto&& drydb_try_result_ = (expr);                                   \
    if (!drydb_try_result_) return std::move(drydb_try_result_).error(); \
  } while (0)
