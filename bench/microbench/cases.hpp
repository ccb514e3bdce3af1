// The operations cvl_microbench times: for each, how to make its host inputs at a size and how
// to run it on a backend, so one table compares cpu, cuda-emulated and cuda.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cvl/backend.hpp"

namespace microbench {

// One operand's host data: a vector of `type`, or (as_segdes) the segment lengths of a segdes.
struct HostOperand {
  cvl::Type type = cvl::Type::Int;
  bool as_segdes = false;
  std::vector<std::int32_t> ints;   // Int, and segment lengths
  std::vector<double> floats;       // Float
  std::vector<std::uint8_t> flags;  // Bool
  std::size_t length() const;
  std::size_t bytes() const;  // what the operation must read of it
};

// An operand on a backend: the vector, or the segdes made from the lengths.
struct DeviceOperand {
  cvl::Vector vector;
  cvl::Segdes segdes;
};

using Rng = std::mt19937_64;

struct Case {
  std::string name;
  std::string summary;
  // The host inputs at `n` elements (random, never all zero).
  std::function<std::vector<HostOperand>(std::size_t n, Rng& rng)> inputs;
  // Runs the operation and returns its result (a vector, or PACK's and MAKE_SEGDES's segdes);
  // operands are handles the caller keeps, so no backend reuses their storage in place.
  std::function<DeviceOperand(cvl::Backend&, std::vector<DeviceOperand>&)> run;
};

// Every case, in table order.
const std::vector<Case>& all_cases();
// The names run when --ops is not given: one of each family.
const std::vector<std::string>& default_case_names();

// Copies host operands to the backend (make_segdes for segment lengths).
std::vector<DeviceOperand> upload(cvl::Backend& backend, const std::vector<HostOperand>& operands);

}  // namespace microbench
