// The pending results made so far (lazy_elementwise.hpp): compute_pending computes them all, and
// a result being computed looks among them for those that share its pending operands
// (shared_pending.cpp).
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "memory/storage.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {

// The pending results made so far, for compute_pending; entries of results computed, taken into
// another expression or dropped are pruned as the list grows.
class PendingResults {
 public:
  void add(const std::shared_ptr<Storage>& storage) {
    std::lock_guard lock(mutex_);
    if (results_.size() >= prune_at_) {
      std::erase_if(results_, [](const std::weak_ptr<Storage>& r) {
        const std::shared_ptr<Storage> s = r.lock();
        return !s || !static_cast<const Buffer*>(s.get())->pending();
      });
      prune_at_ = std::max<std::size_t>(1024, 2 * results_.size());
    }
    results_.push_back(storage);
  }

  // Calls `visit` with each result still pending, one at a time.
  template <class Visit>
  void for_each_pending(Visit&& visit) {
    std::lock_guard lock(mutex_);
    for (const std::weak_ptr<Storage>& r : results_) {
      std::shared_ptr<Storage> storage = r.lock();
      if (storage && static_cast<const Buffer*>(storage.get())->pending()) visit(std::move(storage));
    }
  }

  std::vector<std::weak_ptr<Storage>> take() {
    std::lock_guard lock(mutex_);
    prune_at_ = 1024;
    return std::exchange(results_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::weak_ptr<Storage>> results_;
  std::size_t prune_at_ = 1024;
};

inline PendingResults& pending_results() {
  static PendingResults* const instance = new PendingResults;  // never destroyed, like the cache
  return *instance;
}

}  // namespace cvl::cpu
