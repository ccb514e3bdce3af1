// The shape rules of the Backend contract (backend.hpp) as backends assert them in debug builds.
// The interpreter checks every rule before it calls a backend (vm/exec_vector.cpp and
// exec_fused.cpp, with the messages users see), so a release build compiles these checks away;
// a debug build runs them at every backend entry, so that a caller breaking the contract is
// caught at the call instead of reading out of bounds. Data-dependent checks (indices, divisors,
// segment lengths) are not shape rules: backends always make them.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "cvl/backend.hpp"

namespace cvl::contract {

// A backend was called with operands that break a shape rule: a bug in the caller.
struct Violation : std::logic_error {
  using std::logic_error::logic_error;
};

// Each function names the first rule its operation's operands break, or returns "". Lengths that
// are pending (cvl/length.hpp) break no rule here.
std::string elementwise(vcode::Op op, Type type, std::span<const Vector> operands);
std::string random(const Vector& bounds);
std::string segmented(vcode::Op op, const Vector& v, const Segdes& sd);  // scans, reduce, rank
std::string permute(vcode::Op op, const PermuteOperands& operands);
std::string extract(const Vector& v, const Vector& indices, const Segdes& sd);
std::string replace(const Vector& v, const Vector& indices, const Vector& values,
                    const Segdes& sd);
std::string distribute(const Vector& values, const Segdes& sd);
std::string index(const Vector& starts, const Vector& strides, const Segdes& sd);
std::string pack(const Vector& v, const Vector& flags, const Segdes& sd);
std::string make_segdes(const Vector& lengths);
std::string download(const Vector& v, std::size_t first, std::size_t count);
std::string fused(const PreparedSuperOp& op, std::span<const FusedOperand> operands,
                  const Length& domain);

[[noreturn]] void violated(const std::string& problem);  // throws Violation

}  // namespace cvl::contract

// CVL_EXPECT_SHAPES(contract::scan_or_...(...)): in debug builds, throws contract::Violation
// when the operands break the rule; under NDEBUG, nothing (the argument is not evaluated).
#ifdef NDEBUG
#define CVL_EXPECT_SHAPES(problem) static_cast<void>(0)
#else
#define CVL_EXPECT_SHAPES(problem)                                              \
  do {                                                                          \
    if (const std::string cvl_problem_ = (problem); !cvl_problem_.empty())      \
      ::cvl::contract::violated(cvl_problem_);                                  \
  } while (false)
#endif
