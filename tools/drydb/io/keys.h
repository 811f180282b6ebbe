// Keys as people type and read them: decimal (or 0x hex) int64, UUID and ULID
// text, text with \xNN escapes for bytes; or hex with --hex.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "drydb/key.h"
#include "drydb/key_encoding.h"

namespace drydb::cli {

// The encoded bytes of a typed-in key; a CliError (exit 2) naming the text and
// the encoding when it does not parse. int64 keys are decimal, or hex with a
// 0x prefix. With `hex`: int64 keys are hex integers (0x optional), other keys
// the hex digits of their bytes.
std::string parse_key_text(KeyEncoding encoding, std::string_view text, bool hex);

// A Key of `kind` for encoded bytes (Key::from_encoded: typed keys stay typed, so
// a table checks them as such). For bytes keys the Key refers to `encoded`,
// which must outlive it.
Key make_key(KeyKind kind, std::string_view encoded);
// The same as an owned IndexKey.
IndexKey make_index_key(KeyKind kind, std::string_view encoded);

// The display form of an encoded key: with `hex` an int64 as a hex integer and
// other keys as the hex digits of their bytes; without, for bytes keys
// printable UTF-8 with \xNN escapes (see escape_display); otherwise the
// encoding's own text (decimal, UUID, ULID).
std::string display_key(KeyEncoding encoding, std::span<const std::byte> key, bool hex);

// Appends an encoded key as JSON: a number for int64, a string for UUID, ULID
// and UTF-8 bytes, {"base64": "..."} for other bytes.
void append_json_key(std::string& out, KeyEncoding encoding, std::span<const std::byte> key);

}  // namespace drydb::cli
