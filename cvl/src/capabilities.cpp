// What a backend without a capability does instead (backend.hpp): a single host process.
#include "cvl/backend.hpp"

namespace cvl {
namespace {

class NoSpeculation final : public Speculation {
 public:
  void allow_speculation(bool) override {}
  bool settled() const override { return true; }
  void mark_certain_point() override {}
  void settle() override {}
};

class SingleProcess final : public DistributedIo {
 public:
  bool is_io_root() const override { return true; }
  void share_from_io_root(std::string&) override {}
  std::vector<std::uint64_t> gather_counters(std::span<const std::uint64_t> local) override {
    return {local.begin(), local.end()};
  }
  bool error_is_local() const override { return false; }
  void before_reporting_alone() override {}
  bool all_failed_alone() override { return false; }
  void abort_all(int) override {}
};

}  // namespace

Speculation& speculation_of(Backend& backend) {
  static NoSpeculation none;
  Speculation* own = backend.speculation();
  return own ? *own : none;
}

DistributedIo& distributed_io_of(Backend& backend) {
  static SingleProcess single;
  DistributedIo* own = backend.distributed_io();
  return own ? *own : single;
}

}  // namespace cvl
