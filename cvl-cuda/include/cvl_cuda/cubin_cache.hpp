// The on-disk cache of NVRTC's cubins (plain C++, no CUDA: the real backend's jit.cu uses it, and
// the unit tests test it without a GPU).
//
// An entry is one file, NAME.cubin in the cache directory, NAME a 64-bit hash of the key (the
// complete text NVRTC compiles, with the architecture and NVRTC version). The hash only names
// the file: the file holds the whole key beside the cubin, and a lookup compares it, so two keys
// with one hash (FNV-1a collisions are easy to make) never get each other's cubin. An entry that
// is short, malformed or unreadable is a miss and is removed; so is one its user reports failed to
// load (remove). Entries are written to a private temporary file and renamed, so a concurrent run
// never reads half a file.
//
// The directory is created with mode 0700; an existing one that is not a directory of ours with
// no group or other permissions, or that we cannot write, is not used, and neither is one that
// cannot be created: the cache is then off (lookups miss, stores do nothing). Nothing here throws
// or prints: a cache that does not work only costs compile time.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace cvl::cubin_cache {

std::uint64_t fnv1a(const std::string& text);

// $XDG_CACHE_HOME/nesl-vinterp, or ~/.cache/nesl-vinterp; empty when neither variable is set.
std::filesystem::path default_directory();

class CubinCache {
 public:
  using Hash = std::function<std::uint64_t(const std::string&)>;

  // The cache in `directory` (created if missing; an empty path: no cache). `hash` names the
  // files; tests inject a colliding one.
  explicit CubinCache(std::filesystem::path directory, Hash hash = fnv1a);

  // Whether the directory is usable: false makes every lookup miss and every store a no-op.
  bool enabled() const { return enabled_; }
  const std::filesystem::path& directory() const { return directory_; }

  // The cubin stored under exactly `key`, or nothing. A corrupt entry is removed; an entry for a
  // different key with the same hash is left for store to replace.
  std::optional<std::string> lookup(const std::string& key) const;
  // Stores `cubin` under `key`, replacing whatever entry had its file name; false if not written.
  bool store(const std::string& key, const std::string& cubin);
  // Removes the entry of `key` (one whose cubin would not load), if it holds that key.
  void remove(const std::string& key);

  // The entry's file (tests corrupt it).
  std::filesystem::path path_for(const std::string& key) const;

 private:
  std::filesystem::path directory_;
  Hash hash_;
  bool enabled_ = false;
  std::atomic<unsigned> temporaries_{0};
};

}  // namespace cvl::cubin_cache
