// FUSED's block loops compiled for each instruction set (simd/block_loops.hpp) against the
// portable compilation: every elementwise op, every element type it takes, the same result bits
// on ordinary, boundary and special values (signed zeros, infinities, NaNs, subnormals, INT_MIN,
// shift counts past 31), over lengths that leave every kind of vector tail.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "simd/elementwise_kernels.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kLength = 256 + 37;

// kLength values of type `t` as raw bytes: the special values first, then random ones.
std::vector<std::byte> operand_values(Type t, std::mt19937_64& random) {
  std::vector<std::byte> bytes(kLength * element_size(t));
  if (t == Type::Float) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3.5, 1e308, -1e308, inf, -inf,
                             std::numeric_limits<double>::quiet_NaN(), -std::nan("7"),
                             std::numeric_limits<double>::denorm_min(), -2.2e-308, 2147483647.5,
                             -2147483648.5, 3e9, -3e9, M_PI, 1e-300, 709.0, 710.0, -745.0};
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-40, 40);
    while (v.size() < kLength) v.push_back(std::ldexp(mantissa(random), exponent(random)));
    std::memcpy(bytes.data(), v.data(), bytes.size());
  } else if (t == Type::Int) {
    std::vector<std::int32_t> v = {0, 1, -1, 2, -2, 7, 31, 32, 33, -32, 100, -100,
                                   std::numeric_limits<std::int32_t>::min(),
                                   std::numeric_limits<std::int32_t>::max()};
    while (v.size() < kLength)
      v.push_back(random() % 4 == 0 ? static_cast<std::int32_t>(random() % 65) - 32
                                    : static_cast<std::int32_t>(random()));
    std::memcpy(bytes.data(), v.data(), bytes.size());
  } else {
    for (auto& b : bytes) b = static_cast<std::byte>(random() % 2);
  }
  return bytes;
}

}  // namespace

TEST_CASE("FUSED's block loops give the same bits on every instruction set", "[cpu][fused]") {
  const std::vector<KernelVariant> variants = kernel_variants();
  REQUIRE(variants.front().name == std::string("portable"));
  std::mt19937_64 random(7);
  std::size_t checked = 0;
  for (std::size_t o = 0; o < vcode::op_count; ++o) {
    const auto op = static_cast<vcode::Op>(o);
    if (vcode::info(op).family != vcode::Family::Elementwise) continue;
    for (Type type : {Type::Int, Type::Float, Type::Bool}) {
      if (!takes_type(op, type)) continue;
      const vcode::TypeKeyword keyword = to_keyword(type);
      std::vector<std::vector<std::byte>> operands;
      std::vector<const void*> in;
      for (std::size_t k = 0; k < vcode::arity(op); ++k)
        operands.push_back(operand_values(to_type(vcode::operand_type(op, keyword, k)), random));
      // Operands of one type share their special values, position for position: equal pairs.
      for (auto& operand : operands) in.push_back(operand.data());
      const std::size_t out_size = element_size(to_type(vcode::result_type_of(op, keyword)));
      std::vector<std::byte> expected(kLength * out_size);
      variants.front().kernel_for(op, type)(kLength, in.data(), expected.data());
      for (std::size_t v = 1; v < variants.size(); ++v) {
        // Lengths that leave each kind of tail past 2, 4 and 8 lanes, and the whole block.
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{7},
                              std::size_t{9}, std::size_t{15}, std::size_t{17}, std::size_t{33},
                              kLength}) {
          std::vector<std::byte> got(kLength * out_size, std::byte{0xa5});
          variants[v].kernel_for(op, type)(n, in.data(), got.data());
          INFO(vcode::spelling(op) << " " << type_name(type) << ", " << variants[v].name
                                   << ", n " << n);
          REQUIRE(std::memcmp(got.data(), expected.data(), n * out_size) == 0);
          for (std::size_t i = n * out_size; i < got.size(); ++i)
            REQUIRE(got[i] == std::byte{0xa5});  // nothing stored past n
        }
        ++checked;
      }
    }
  }
  // The kernels of this CPU's wide variants were all compared (none where it has none).
  CHECK(checked == (variants.size() - 1) * [] {
          std::size_t pairs = 0;
          for (std::size_t o = 0; o < vcode::op_count; ++o)
            for (Type t : {Type::Int, Type::Float, Type::Bool})
              pairs += vcode::info(static_cast<vcode::Op>(o)).family ==
                               vcode::Family::Elementwise &&
                           takes_type(static_cast<vcode::Op>(o), t);
          return pairs;
        }());
}

TEST_CASE("the fused kernel of an op that is not elementwise is an internal error",
          "[cpu][fused]") {
  CHECK_THROWS_AS(kernel_for(vcode::Op::Permute, Type::Int), InternalError);
  CHECK_THROWS_AS(kernel_for(vcode::Op::Not, Type::Float), InternalError);
}

}  // namespace cvl::cpu
