// `--profile`: per-opcode counts, time and elements processed, printed as a table at the end.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>

#include "vcode/op.hpp"

namespace vm {

class Profile {
 public:
  Profile();

  // `seconds` is the measured time of one instruction; the cost of reading the clock twice is
  // subtracted so that cheap instructions show their own cost.
  void record(vcode::Op op, double seconds, std::uint64_t elements) {
    auto& row = rows_[static_cast<std::size_t>(op)];
    ++row.count;
    row.seconds += seconds > clock_overhead_ ? seconds - clock_overhead_ : 0.0;
    row.elements += elements;
  }
  // Writes the table, busiest opcodes first, with totals and the mean cost per instruction.
  void print(std::FILE* out, double wall_seconds) const;

 private:
  struct Row {
    std::uint64_t count = 0;
    double seconds = 0;
    std::uint64_t elements = 0;
  };
  std::array<Row, vcode::op_count> rows_{};
  double clock_overhead_ = 0;
};

}  // namespace vm
