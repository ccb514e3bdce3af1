// Catch2's main for cvl-cpu's internals. A test tagged [populate-write] needs a kernel that takes
// MADV_POPULATE_WRITE (Linux 5.14 and later), one tagged [huge-pages] a kernel that gives a
// mapping transparent huge pages when asked; on others they are skipped (catch_preconditions.hpp).
// One tagged [free-cores] needs the pool to use its helpers: not while other processes hold the
// cores.
#include <sys/mman.h>

#include "catch_preconditions.hpp"
#include "thp_eligible.hpp"
#include "threads/thread_pool.hpp"

namespace {

bool kernel_populates_on_advice() {
#ifdef MADV_POPULATE_WRITE
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool supported = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  return supported;
#else
  return false;
#endif
}

bool kernel_gives_huge_pages_on_advice() {
  constexpr std::size_t kBytes = std::size_t{4} << 20;
  void* probe = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool eligible = madvise(probe, kBytes, MADV_HUGEPAGE) == 0 && cvl::cpu::test::thp_eligible(probe) == 1;
  munmap(probe, kBytes);
  return eligible;
}

}  // namespace

int main(int argc, char* argv[]) {
  return nesl_test::run_with_preconditions(
      argc, argv,
      {{"populate-write", kernel_populates_on_advice,
        "this system has no MADV_POPULATE_WRITE (Linux 5.14 and later)"},
       {"huge-pages", kernel_gives_huge_pages_on_advice,
        "this kernel gives no mapping transparent huge pages (THP off, or no THPeligible in smaps)"},
       {"free-cores", [] { return cvl::cpu::helpers_pay(); },
        "other processes hold the cores: the pool runs jobs on the caller alone"}});
}
