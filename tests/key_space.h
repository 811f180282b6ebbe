// Neighbouring keys in a key space, for tests and fuzz targets alike (free of GoogleTest): the
// keys just after and just before a key, to probe the edges of ranges.
#pragma once

#include <cstddef>
#include <string>

namespace drydb_support {

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

}  // namespace drydb_support
