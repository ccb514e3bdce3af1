// The random generator behind RAND/SRAND: glibc random() (TYPE_3), reimplemented bit for bit
// (spec/CVL.md §7) so every backend and platform prints the same numbers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cvl {

class RandomStream {
 public:
  RandomStream() { seed(1); }  // glibc's default state equals srandom(1)

  void seed(std::uint32_t seed_value);

  // The next output, a value in [0, 2^31 - 1].
  std::int32_t next() {
    state_[front_] = static_cast<std::int32_t>(static_cast<std::uint32_t>(state_[front_]) +
                                               static_cast<std::uint32_t>(state_[rear_]));
    auto result = static_cast<std::int32_t>(static_cast<std::uint32_t>(state_[front_]) >> 1);
    front_ = front_ + 1 == kDegree ? 0 : front_ + 1;
    rear_ = rear_ + 1 == kDegree ? 0 : rear_ + 1;
    return result;
  }

  // The next n outputs, in order: what n calls of next() return, computed several at a time.
  void fill(std::int32_t* out, std::size_t n);

  // Skips the next n outputs.
  void discard(std::size_t n);

 private:
  static constexpr int kDegree = 31;
  std::array<std::int32_t, kDegree> state_{};
  int front_ = 3;
  int rear_ = 0;
};

}  // namespace cvl
