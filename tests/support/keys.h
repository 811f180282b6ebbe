// Bytes and keys as every suite and fuzz target handles them (free of GoogleTest): byte views of
// strings, encoded int64 keys, the typed Key for encoded bytes, the neighbouring keys of a key
// space, and the printable forms of keys and errors used in failure messages.
//
// Keys are handled as their *encoded* bytes (a std::string per key): std::string orders by
// unsigned bytes, then length, which is the order drydb promises for every encoding
// (key_encoding.h), so one model type serves every encoding.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "drydb/detail/coding.h"
#include "drydb/drydb.h"

namespace drydb_test {

using Bytes = std::span<const std::byte>;

// ---- bytes -------------------------------------------------------------------------------------

inline Bytes as_bytes(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}
inline std::string to_string(Bytes b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}
inline std::string_view to_view(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}
inline bool same(Bytes a, std::string_view b) {
  return a.size() == b.size() && (b.empty() || std::memcmp(a.data(), b.data(), b.size()) == 0);
}

// ---- keys --------------------------------------------------------------------------------------

// The encoded form of an int64 key (8 big-endian bytes with the sign bit flipped, so memcmp
// order is numeric order), and back.
inline std::string int64_key(int64_t v) {
  std::string s(8, '\0');
  drydb::detail::store_be64(reinterpret_cast<std::byte*>(s.data()), drydb::int64_to_ordered(v));
  return s;
}
inline int64_t int64_of(std::string_view k) {
  return drydb::ordered_to_int64(
      drydb::detail::load_be64(reinterpret_cast<const std::byte*>(k.data())));
}

// The width every key of a typed kind has (int64 8, uuid and ulid 16); 0 for bytes and custom
// kinds, whose tables take a bytes key of any length.
inline size_t typed_width(drydb::KeyKind kind) {
  switch (kind) {
    case drydb::KeyKind::int64:
      return 8;
    case drydb::KeyKind::uuid:
    case drydb::KeyKind::ulid:
      return 16;
    default:
      return 0;
  }
}

// The typed Key a user would pass for encoded key `k` of a table of keys of `kind`: an int64_t, a
// Uuid, a Ulid (of k's first 16 bytes, zero-padded), or (bytes and custom encodings) the bytes,
// which the Key borrows from `k`. Requires: an int64 key has 8 bytes.
inline drydb::Key typed_key(drydb::KeyKind kind, std::string_view k) {
  switch (kind) {
    case drydb::KeyKind::int64:
      return drydb::Key(int64_of(k));
    case drydb::KeyKind::uuid: {
      drydb::Uuid u{};
      std::memcpy(u.bytes.data(), k.data(), std::min<size_t>(16, k.size()));
      return drydb::Key(u);
    }
    case drydb::KeyKind::ulid: {
      drydb::Ulid u{};
      std::memcpy(u.bytes.data(), k.data(), std::min<size_t>(16, k.size()));
      return drydb::Key(u);
    }
    default:
      return drydb::Key(k);
  }
}

// The smallest key greater than k in a key space of keys of `width` bytes (0 = variable): k + 1
// as a big-endian number for fixed widths, k + "\0" for variable ones; false when k is the
// largest key.
inline bool next_key(size_t width, const std::string& k, std::string* out) {
  if (width == 0) {
    *out = k + '\0';
    return true;
  }
  std::string s = k;
  for (size_t i = s.size(); i-- > 0;) {
    if (static_cast<unsigned char>(s[i]) != 0xff) {
      s[i] = static_cast<char>(static_cast<unsigned char>(s[i]) + 1);
      *out = s;
      return true;
    }
    s[i] = '\0';
  }
  return false;
}

// A key smaller than k (fixed width: k - 1 as a big-endian number; variable: k without its last
// byte); false when k is the smallest key.
inline bool previous_key(size_t width, const std::string& k, std::string* out) {
  if (width == 0) {
    if (k.empty()) return false;
    *out = k.substr(0, k.size() - 1);
    return true;
  }
  std::string s = k;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] != '\0') {
      s[i] = static_cast<char>(static_cast<unsigned char>(s[i]) - 1);
      *out = s;
      return true;
    }
    s[i] = static_cast<char>(0xff);
  }
  return false;
}

// ---- messages ----------------------------------------------------------------------------------

// Printable form of key bytes.
inline std::string show(std::string_view k) {
  return drydb::escape_bytes(as_bytes(k));
}

// Printable form of an encoded key of `kind`: the number for an int64 key, escaped bytes else.
inline std::string show_key(drydb::KeyKind kind, std::string_view k) {
  return kind == drydb::KeyKind::int64 && k.size() == 8 ? std::to_string(int64_of(k)) : show(k);
}

// An Error for a failure message. Deliberately not Error::to_string() or operator<< on the code:
// those call the code's category, and when a code is not in drydb's category
// (std::generic_category() lives in the uninstrumented libstdc++) UBSan's vptr check aborts the
// whole binary.
inline std::string describe(const drydb::Error& e) {
  const bool ours = &e.code.category() == &drydb::error_category();
  return e.message + " (" + (ours ? "drydb:" : "NOT drydb category:") +
         std::to_string(e.code.value()) + ")";
}

// Whether `code` is drydb's `e`. Compares the category's address: even the non-virtual
// error_category::operator== is a member call UBSan checks (see describe()).
inline bool is(std::error_code code, drydb::errc e) {
  return &code.category() == &drydb::error_category() && code.value() == static_cast<int>(e);
}

}  // namespace drydb_test
