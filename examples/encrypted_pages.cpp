// A custom page filter: authenticated encryption (XChaCha20-Poly1305 from
// libsodium) chained after zstd, with the key supplied by the reader.
//
//   encrypted_pages [FILE]
//
// Pages are compressed first and then encrypted (encrypted bytes do not
// compress). The nonce of each page is a keyed hash of its plaintext, so the
// build stays deterministic and no nonce repeats for different pages; equal
// pages encrypt equally, which a file of distinct pages does not reveal.
#include <sodium.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <memory>

#include "drydb/drydb.h"

namespace {

using Key = std::array<unsigned char, crypto_aead_xchacha20poly1305_ietf_KEYBYTES>;

class EncryptFilter final : public drydb::PageFilter {
 public:
  static constexpr size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  static constexpr size_t kTag = crypto_aead_xchacha20poly1305_ietf_ABYTES;

  explicit EncryptFilter(const Key& key) : key_(key) {}

  std::string_view id() const noexcept override { return "example-xchacha20"; }
  size_t max_encoded_size(size_t n) const noexcept override { return kNonce + n + kTag; }

  drydb::result<size_t> encode(std::span<const std::byte> in,
                               std::span<std::byte> out) const override {
    auto* o = reinterpret_cast<unsigned char*>(out.data());
    const auto* m = reinterpret_cast<const unsigned char*>(in.data());
    crypto_generichash(o, kNonce, m, in.size(), key_.data(), key_.size());
    unsigned long long written = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(o + kNonce, &written, m, in.size(), nullptr, 0,
                                               nullptr, o, key_.data());
    return kNonce + static_cast<size_t>(written);
  }

  drydb::result<size_t> decode(std::span<const std::byte> in,
                               std::span<std::byte> out) const override {
    if (in.size() < kNonce + kTag || in.size() - kNonce - kTag > out.size())
      return drydb::Error(drydb::errc::corruption, "encrypted page of a bad length");
    const auto* c = reinterpret_cast<const unsigned char*>(in.data());
    unsigned long long written = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(
            reinterpret_cast<unsigned char*>(out.data()), &written, nullptr, c + kNonce,
            in.size() - kNonce, nullptr, 0, c, key_.data()) != 0)
      return drydb::Error(drydb::errc::corruption, "page failed authentication (wrong key?)");
    return static_cast<size_t>(written);
  }

 private:
  Key key_;
};

// What a reader passes to open(): a factory for the filter id, holding its key.
drydb::OpenOptions with_key(const Key& key) {
  drydb::OpenOptions options;
  options.filters.push_back(
      {"example-xchacha20",
       [key](
           std::span<const std::byte>) -> drydb::result<std::shared_ptr<const drydb::PageFilter>> {
         return std::shared_ptr<const drydb::PageFilter>(std::make_shared<EncryptFilter>(key));
       }});
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "encrypted.drydb";
  if (sodium_init() < 0) return 1;
  Key key;
  crypto_aead_xchacha20poly1305_ietf_keygen(key.data());

  drydb::DatabaseBuilder builder(
      {.filters = {drydb::filters::zstd(), std::make_shared<EncryptFilter>(key)}});
  auto& secrets = builder.create_table("secrets", drydb::KeyEncoding::int64());
  for (int64_t id = 0; id < 1000; ++id)
    secrets.append(id, "secret number " + std::to_string(id));
  if (auto st = builder.build_to_file(path); !st) {
    std::fprintf(stderr, "build: %s\n", st.error().to_string().c_str());
    return 1;
  }

  // The right key reads the file.
  auto db = drydb::ReadOnlyDatabase::open(path, with_key(key));
  if (!db) {
    std::fprintf(stderr, "open: %s\n", db.error().to_string().c_str());
    return 1;
  }
  auto value = db->table("secrets")->get(42);
  if (!value || !*value) return 1;
  std::printf("get 42 -> %.*s\n", static_cast<int>(value->size()), value->str().data());

  // Without a factory for the filter the file does not open; with another
  // key it opens (the catalog is not encrypted) but no page decodes.
  auto no_key = drydb::ReadOnlyDatabase::open(path);
  std::printf("open without the key: %s\n", no_key ? "opened?!" : no_key.error().message.c_str());
  Key other;
  crypto_aead_xchacha20poly1305_ietf_keygen(other.data());
  auto wrong = drydb::ReadOnlyDatabase::open(path, with_key(other));
  if (!wrong) return 1;
  auto denied = wrong->table("secrets")->get(42);
  std::printf("get with another key: %s\n", denied ? "read?!" : denied.error().message.c_str());
  return no_key || denied ? 1 : 0;
}
