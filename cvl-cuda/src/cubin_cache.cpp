// The on-disk cubin cache (cvl_cuda/cubin_cache.hpp).
//
// An entry's file: the magic line, the key's and the cubin's sizes (8 bytes each, little-endian),
// the key, the cubin; its size must be exactly their sum.
#include "cvl_cuda/cubin_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cvl::cubin_cache {
namespace {

constexpr char kMagic[] = "NESL-VINTERP CUBIN 1\n";
constexpr std::size_t kMagicSize = sizeof kMagic - 1;
constexpr std::size_t kHeaderSize = kMagicSize + 16;
// Larger files are not ours: not read into memory.
constexpr std::uint64_t kMaxEntry = std::uint64_t(1) << 30;

void put_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const char* in) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= std::uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return value;
}

// The whole of a regular file (not followed through a link), or nothing.
std::optional<std::string> read_file(const std::filesystem::path& path, bool& exists) {
  exists = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    exists = errno != ENOENT;
    return std::nullopt;
  }
  exists = true;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) > kMaxEntry) {
    ::close(fd);
    return std::nullopt;
  }
  std::string data(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done != data.size()) return std::nullopt;
  return data;
}

enum class Entry { Missing, Corrupt, OtherKey, Match };

// What the file at `path` holds for `key`; the cubin into `cubin` on a match.
Entry examine(const std::filesystem::path& path, const std::string& key, std::string* cubin) {
  bool exists = false;
  std::optional<std::string> data = read_file(path, exists);
  if (!data) return exists ? Entry::Corrupt : Entry::Missing;
  if (data->size() < kHeaderSize || data->compare(0, kMagicSize, kMagic) != 0)
    return Entry::Corrupt;
  const std::uint64_t key_size = get_u64(data->data() + kMagicSize);
  const std::uint64_t cubin_size = get_u64(data->data() + kMagicSize + 8);
  const std::uint64_t body = data->size() - kHeaderSize;
  if (key_size > body || cubin_size != body - key_size || cubin_size == 0) return Entry::Corrupt;
  if (key_size != key.size() || data->compare(kHeaderSize, key_size, key) != 0)
    return Entry::OtherKey;
  if (cubin) *cubin = data->substr(kHeaderSize + key_size);
  return Entry::Match;
}

// Whether `directory` exists (creating it 0700 if not) as a directory of ours, private, writable.
bool usable_directory(const std::filesystem::path& directory) {
  if (directory.empty()) return false;
  std::error_code ignored;
  if (directory.has_parent_path())
    std::filesystem::create_directories(directory.parent_path(), ignored);
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) return false;
  struct stat st;
  if (::lstat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) return false;
  return ::access(directory.c_str(), R_OK | W_OK | X_OK) == 0;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::filesystem::path default_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "nesl-vinterp";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "nesl-vinterp";
  return {};
}

CubinCache::CubinCache(std::filesystem::path directory, Hash hash)
    : directory_(std::move(directory)), hash_(std::move(hash)) {
  enabled_ = usable_directory(directory_);
}

std::filesystem::path CubinCache::path_for(const std::string& key) const {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(hash_(key)));
  return directory_ / name;
}

std::optional<std::string> CubinCache::lookup(const std::string& key) const {
  if (!enabled_) return std::nullopt;
  const std::filesystem::path path = path_for(key);
  std::string cubin;
  switch (examine(path, key, &cubin)) {
    case Entry::Match:
      return cubin;
    case Entry::Corrupt:
      ::unlink(path.c_str());
      return std::nullopt;
    case Entry::Missing:
    case Entry::OtherKey:
      return std::nullopt;
  }
  return std::nullopt;
}

bool CubinCache::store(const std::string& key, const std::string& cubin) {
  if (!enabled_ || cubin.empty()) return false;
  const std::filesystem::path path = path_for(key);
  std::string data(kMagic, kMagicSize);
  put_u64(data, key.size());
  put_u64(data, cubin.size());
  data.reserve(data.size() + key.size() + cubin.size());
  data += key;
  data += cubin;
  const std::filesystem::path temporary =
      path.string() + ".tmp" + std::to_string(::getpid()) + "." +
      std::to_string(temporaries_.fetch_add(1));
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // A short write (disk full) must not become the cached cubin of every later run.
  bool ok = write_all(fd, data);
  ok = (::close(fd) == 0) && ok;
  if (ok) ok = ::rename(temporary.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(temporary.c_str());
  return ok;
}

void CubinCache::remove(const std::string& key) {
  if (!enabled_) return;
  const std::filesystem::path path = path_for(key);
  const Entry entry = examine(path, key, nullptr);
  if (entry == Entry::Match || entry == Entry::Corrupt) ::unlink(path.c_str());
}

}  // namespace cvl::cubin_cache
