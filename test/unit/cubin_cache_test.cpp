// cvl::cubin_cache::CubinCache, the on-disk cache of the GPU backend's NVRTC cubins: host-only,
// so tested here without a GPU.
#include "cvl_cuda/cubin_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using cvl::cubin_cache::CubinCache;

namespace {

// A fresh scratch directory, removed (made writable first) at the end of the test.
struct Scratch {
  fs::path root;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "cubin_cache_test.XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    root = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, ignored);
    for (auto& entry : fs::recursive_directory_iterator(root, ignored))
      if (entry.is_directory(ignored))
        fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(root, ignored);
  }
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::uint64_t same_hash(const std::string&) { return 0x1234; }

}  // namespace

TEST_CASE("cubin cache: a stored cubin is found under its key", "[cubin_cache]") {
  Scratch scratch;
  CubinCache cache(scratch.root / "cache");
  REQUIRE(cache.enabled());
  CHECK_FALSE(cache.lookup("source A"));
  const std::string cubin("\x7f" "ELF\0binary\0", 12);
  REQUIRE(cache.store("source A", cubin));
  REQUIRE(cache.lookup("source A"));
  CHECK(*cache.lookup("source A") == cubin);
  CHECK_FALSE(cache.lookup("source B"));
  // Another instance (a later run) sees it too, and no temporary file is left behind.
  CubinCache later(scratch.root / "cache");
  CHECK(later.lookup("source A") == cubin);
  int files = 0;
  for (auto& entry : fs::directory_iterator(scratch.root / "cache")) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("cubin cache: keys with one file name never get each other's cubin",
          "[cubin_cache]") {
  Scratch scratch;
  CubinCache cache(scratch.root / "cache", same_hash);
  REQUIRE(cache.path_for("key one") == cache.path_for("key two"));
  REQUIRE(cache.store("key one", "cubin one"));
  CHECK(cache.lookup("key one") == std::string("cubin one"));
  CHECK_FALSE(cache.lookup("key two"));  // a miss, not the planted cubin
  // A key that is a prefix of the stored one (or extends it) is another key too.
  CHECK_FALSE(cache.lookup("key on"));
  CHECK_FALSE(cache.lookup("key one "));
  // remove of the other key leaves the entry alone; a store of it replaces the entry.
  cache.remove("key two");
  CHECK(cache.lookup("key one") == std::string("cubin one"));
  REQUIRE(cache.store("key two", "cubin two"));
  CHECK(cache.lookup("key two") == std::string("cubin two"));
  CHECK_FALSE(cache.lookup("key one"));
  // The real hash names the two files apart.
  CubinCache real(scratch.root / "cache");
  CHECK(real.path_for("key one") != real.path_for("key two"));
}

TEST_CASE("cubin cache: a corrupt entry is a miss and is removed", "[cubin_cache]") {
  Scratch scratch;
  CubinCache cache(scratch.root / "cache");
  REQUIRE(cache.enabled());
  const fs::path path = cache.path_for("the key");
  const std::string cubin(1000, 'c');

  SECTION("truncated") {
    REQUIRE(cache.store("the key", cubin));
    const std::string whole = slurp(path);
    fs::resize_file(path, whole.size() - 1);
  }
  SECTION("extended") {
    REQUIRE(cache.store("the key", cubin));
    std::ofstream(path, std::ios::binary | std::ios::app) << "x";
  }
  SECTION("shorter than a header") {
    std::ofstream(path, std::ios::binary) << "NESL";
  }
  SECTION("empty") {
    std::ofstream(path, std::ios::binary).flush();
  }
  SECTION("a bare cubin (the old format)") {
    std::ofstream(path, std::ios::binary) << cubin;
  }
  SECTION("not a regular file") {
    fs::create_directory(path);
    std::ofstream(path / "inside") << "x";
    // A directory cannot be unlinked: still a miss, and a store still cannot be read back wrong.
    CHECK_FALSE(cache.lookup("the key"));
    return;
  }
  CHECK_FALSE(cache.lookup("the key"));
  CHECK_FALSE(fs::exists(path));
  // Rebuilt: stored again, it is found.
  REQUIRE(cache.store("the key", cubin));
  CHECK(cache.lookup("the key") == cubin);
}

TEST_CASE("cubin cache: remove drops an entry the caller could not load", "[cubin_cache]") {
  Scratch scratch;
  CubinCache cache(scratch.root / "cache");
  REQUIRE(cache.store("k", "bad cubin"));
  REQUIRE(cache.lookup("k"));
  cache.remove("k");
  CHECK_FALSE(fs::exists(cache.path_for("k")));
  CHECK_FALSE(cache.lookup("k"));
  cache.remove("k");  // nothing there: no error
  REQUIRE(cache.store("k", "good cubin"));
  CHECK(cache.lookup("k") == std::string("good cubin"));
}

TEST_CASE("cubin cache: the directory is created private", "[cubin_cache]") {
  Scratch scratch;
  const fs::path dir = scratch.root / "xdg" / "nesl-vinterp";
  const mode_t old_umask = ::umask(0);  // even a permissive umask gives 0700
  CubinCache cache(dir);
  ::umask(old_umask);
  REQUIRE(cache.enabled());
  struct stat st;
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(cache.store("k", "cubin"));
  REQUIRE(::stat(cache.path_for("k").c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);
}

TEST_CASE("cubin cache: a directory that is not private is not used", "[cubin_cache]") {
  Scratch scratch;
  const fs::path dir = scratch.root / "shared";
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::all);  // 0777
  CubinCache cache(dir);
  CHECK_FALSE(cache.enabled());
  CHECK_FALSE(cache.store("k", "cubin"));
  CHECK_FALSE(cache.lookup("k"));
  CHECK(fs::is_empty(dir));
  // Nor is a link to a private directory.
  const fs::path real = scratch.root / "real";
  REQUIRE(::mkdir(real.c_str(), 0700) == 0);
  fs::create_directory_symlink(real, scratch.root / "link");
  CHECK_FALSE(CubinCache(scratch.root / "link").enabled());
}

TEST_CASE("cubin cache: an unusable directory means no cache and no error", "[cubin_cache]") {
  Scratch scratch;
  SECTION("cannot be created (under a regular file)") {
    std::ofstream(scratch.root / "file") << "x";
    CubinCache cache(scratch.root / "file" / "nesl-vinterp");
    CHECK_FALSE(cache.enabled());
    CHECK_FALSE(cache.store("k", "cubin"));
    CHECK_FALSE(cache.lookup("k"));
    cache.remove("k");
  }
  SECTION("no directory at all") {
    CubinCache cache{fs::path()};
    CHECK_FALSE(cache.enabled());
    CHECK_FALSE(cache.store("k", "cubin"));
    CHECK_FALSE(cache.lookup("k"));
  }
  SECTION("read-only") {
    const fs::path dir = scratch.root / "ro";
    REQUIRE(::mkdir(dir.c_str(), 0500) == 0);
    REQUIRE(::chmod(dir.c_str(), 0500) == 0);
    CubinCache cache(dir);
    if (::geteuid() == 0) {
      // Root writes anyway: permissions are not enforced, so the cache works; the case of a
      // directory that really cannot be written is the one under a regular file above.
      CHECK(cache.store("k", "cubin"));
      CHECK(cache.lookup("k") == std::string("cubin"));
    } else {
      CHECK_FALSE(cache.enabled());
      CHECK_FALSE(cache.store("k", "cubin"));
      CHECK_FALSE(cache.lookup("k"));
    }
  }
}

TEST_CASE("cubin cache: the default directory follows XDG_CACHE_HOME, then HOME",
          "[cubin_cache]") {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string saved_xdg = xdg ? xdg : "", saved_home = home ? home : "";
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  CHECK(cvl::cubin_cache::default_directory() == fs::path("/x/cache/nesl-vinterp"));
  ::setenv("XDG_CACHE_HOME", "", 1);
  ::setenv("HOME", "/h", 1);
  CHECK(cvl::cubin_cache::default_directory() == fs::path("/h/.cache/nesl-vinterp"));
  if (xdg)
    ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  else
    ::unsetenv("XDG_CACHE_HOME");
  if (home)
    ::setenv("HOME", saved_home.c_str(), 1);
  else
    ::unsetenv("HOME");
}
