// A length: a vector's element count, a descriptor's segment count or total. Either known on the
// host, or pending: counted by the device (PACK's result, the total of MAKE_SEGDES over device
// lengths, everything whose length follows from those), with a host upper bound that buffers are
// sized for, and resolved when the backend next synchronizes (one read for every pending count).
//
// Handles share the PendingCount of the operation that made the count, so two lengths that come
// from one count are equal without asking the device (same_count). get() is the one place the
// host waits for a count; bound() and known() never wait.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>

#include "cvl/errors.hpp"

namespace cvl {

// A count the device computes. The backend that made it resolves it at a synchronization
// (resolve()); wait() asks that backend to synchronize now.
class PendingCount {
 public:
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

  explicit PendingCount(std::size_t bound) : bound_(bound) {}
  virtual ~PendingCount() = default;
  PendingCount(const PendingCount&) = delete;
  PendingCount& operator=(const PendingCount&) = delete;

  // An upper bound of the count known on the host (kUnbounded: none).
  std::size_t bound() const { return resolved_ ? value_ : bound_; }
  bool resolved() const { return resolved_; }
  // A count with no bound may be given a guessed one (speculation: buffers are sized for the
  // guess and every kernel stops at it). resolve() then says whether the guess held.
  void assume_bound(std::size_t guess) {
    bound_ = guess;
    guessed_ = true;
  }
  bool guessed() const { return guessed_; }
  // The bound before resolution (the guess, for a guessed count).
  std::size_t guessed_bound() const { return bound_; }
  // The count, waiting for the device if it is not resolved yet.
  std::size_t value() {
    if (!resolved_) wait();
    if (!resolved_) throw InternalError("a pending count was not resolved by a synchronization");
    return value_;
  }
  // Called by the backend when it has read the count. False when the count exceeds a guessed
  // bound: what was computed from it was cut short and must be computed again.
  bool resolve(std::size_t count) {
    value_ = count;
    resolved_ = true;
    return !(guessed_ && count > bound_);
  }

 protected:
  virtual void wait() = 0;

 private:
  std::size_t bound_;
  std::size_t value_ = 0;
  bool resolved_ = false;
  bool guessed_ = false;
};

class Length {
 public:
  Length() = default;
  Length(std::size_t known) : count_(known) {}  // NOLINT: a count is a known length
  explicit Length(std::shared_ptr<PendingCount> pending)
      : count_(pending->bound()), pending_(std::move(pending)) {}

  // Whether the count is known on the host (no wait needed).
  bool known() const { return !pending_ || pending_->resolved(); }
  // The count if known, else its upper bound (PendingCount::kUnbounded for none); never waits.
  std::size_t bound() const { return pending_ ? pending_->bound() : count_; }
  // The count; waits for the device if it is pending.
  std::size_t get() const { return pending_ ? pending_->value() : count_; }
  // The count, for code that never meets pending lengths (cvl-cpu, host-side paths): a pending,
  // unresolved count here is a broken invariant, not a silent wait.
  operator std::size_t() const {  // NOLINT: a known length is a count
    if (!known()) throw InternalError("a pending length was read as a known count");
    return get();
  }
  // The count object shared by every length made from it (null for a known count).
  const std::shared_ptr<PendingCount>& pending() const { return pending_; }

 private:
  std::size_t count_ = 0;  // the count when pending_ is null
  std::shared_ptr<PendingCount> pending_;
};

// Whether a and b are certainly equal without waiting: the same count object, or both known and
// equal.
inline bool same_count(const Length& a, const Length& b) {
  if (a.pending() && a.pending() == b.pending()) return true;
  return a.known() && b.known() && a.get() == b.get();
}
// Whether a and b certainly differ without waiting: both known and different.
inline bool differ(const Length& a, const Length& b) {
  return a.known() && b.known() && a.get() != b.get();
}

}  // namespace cvl
