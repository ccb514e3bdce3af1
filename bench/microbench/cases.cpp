#include "cases.hpp"

#include <algorithm>
#include <numeric>

namespace microbench {

using cvl::Type;
using vcode::Op;

std::size_t HostOperand::length() const {
  if (as_segdes || type == Type::Int) return ints.size();
  return type == Type::Float ? floats.size() : flags.size();
}

std::size_t HostOperand::bytes() const {
  return as_segdes ? ints.size() * sizeof(std::int32_t) : length() * cvl::element_size(type);
}

std::vector<DeviceOperand> upload(cvl::Backend& backend, const std::vector<HostOperand>& operands) {
  std::vector<DeviceOperand> out;
  for (const HostOperand& h : operands) {
    DeviceOperand d;
    if (h.as_segdes) {
      d.segdes = backend.make_segdes(backend.upload(Type::Int, h.ints.data(), h.ints.size()));
    } else {
      const void* data = h.type == Type::Int     ? static_cast<const void*>(h.ints.data())
                         : h.type == Type::Float ? static_cast<const void*>(h.floats.data())
                                                 : static_cast<const void*>(h.flags.data());
      d.vector = backend.upload(h.type, data, h.length());
    }
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

HostOperand random_ints(std::size_t n, Rng& rng, std::int32_t low = -1000000,
                        std::int32_t high = 1000000) {
  HostOperand h;
  h.type = Type::Int;
  std::uniform_int_distribution<std::int32_t> pick(low, high);
  h.ints.resize(n);
  for (auto& x : h.ints) x = pick(rng);
  return h;
}

HostOperand random_floats(std::size_t n, Rng& rng, double low = -1.0, double high = 1.0) {
  HostOperand h;
  h.type = Type::Float;
  std::uniform_real_distribution<double> pick(low, high);
  h.floats.resize(n);
  for (auto& x : h.floats) x = pick(rng);
  return h;
}

HostOperand random_flags(std::size_t n, Rng& rng) {
  HostOperand h;
  h.type = Type::Bool;
  std::bernoulli_distribution pick(0.5);
  h.flags.resize(n);
  for (auto& x : h.flags) x = pick(rng) ? 1 : 0;
  return h;
}

HostOperand segment_lengths(std::vector<std::int32_t> lengths) {
  HostOperand h;
  h.as_segdes = true;
  h.ints = std::move(lengths);
  return h;
}

// `segments` segments of near-equal length summing to n (at least one segment).
HostOperand even_segments(std::size_t n, std::size_t segments) {
  segments = std::max<std::size_t>(1, segments);
  std::vector<std::int32_t> lengths(segments);
  for (std::size_t k = 0; k < segments; ++k)
    lengths[k] = static_cast<std::int32_t>(n * (k + 1) / segments - n * k / segments);
  return segment_lengths(std::move(lengths));
}

// Random lengths in [0, 2 * mean] (empty segments included) summing to exactly n.
HostOperand random_segments(std::size_t n, std::int32_t mean, Rng& rng) {
  std::uniform_int_distribution<std::int32_t> pick(0, 2 * mean);
  std::vector<std::int32_t> lengths;
  std::size_t sum = 0;
  while (sum < n) {
    auto len = static_cast<std::int32_t>(std::min<std::size_t>(pick(rng), n - sum));
    lengths.push_back(len);
    sum += static_cast<std::size_t>(len);
  }
  if (lengths.empty()) lengths.push_back(0);
  return segment_lengths(std::move(lengths));
}

// One segment of half the elements among many of length 0 to 2: load balance.
HostOperand skewed_segments(std::size_t n, Rng& rng) {
  std::vector<std::int32_t> lengths{static_cast<std::int32_t>(n / 2)};
  std::uniform_int_distribution<std::int32_t> pick(0, 2);
  std::size_t sum = n / 2;
  while (sum < n) {
    auto len = static_cast<std::int32_t>(std::min<std::size_t>(pick(rng), n - sum));
    lengths.push_back(len);
    sum += static_cast<std::size_t>(len);
  }
  std::shuffle(lengths.begin(), lengths.end(), rng);
  return segment_lengths(std::move(lengths));
}

HostOperand permutation(std::size_t n, Rng& rng) {
  HostOperand h;
  h.type = Type::Int;
  h.ints.resize(n);
  std::iota(h.ints.begin(), h.ints.end(), 0);
  std::shuffle(h.ints.begin(), h.ints.end(), rng);
  return h;
}

DeviceOperand as_result(cvl::Vector v) { return {std::move(v), {}}; }

Case elementwise_case(std::string name, std::string summary, Op op, Type type, int arity) {
  return {std::move(name), std::move(summary),
          [type, arity](std::size_t n, Rng& rng) {
            std::vector<HostOperand> in;
            for (int a = 0; a < arity; ++a)
              in.push_back(type == Type::Float ? random_floats(n, rng) : random_ints(n, rng));
            return in;
          },
          [op, type](cvl::Backend& b, std::vector<DeviceOperand>& in) {
            std::vector<cvl::Vector> operands;
            for (auto& d : in) operands.push_back(d.vector);
            return as_result(b.elementwise(op, type, operands));
          }};
}

// A scan or reduce of `type` over the segments `segments(n, rng)` makes.
Case segmented_case(std::string name, std::string summary, Op op, Type type,
                    std::function<HostOperand(std::size_t, Rng&)> segments) {
  return {std::move(name), std::move(summary),
          [type, segments](std::size_t n, Rng& rng) {
            return std::vector<HostOperand>{
                type == Type::Float ? random_floats(n, rng) : random_ints(n, rng, -1000, 1000),
                segments(n, rng)};
          },
          [op](cvl::Backend& b, std::vector<DeviceOperand>& in) {
            const bool scan = vcode::info(op).family == vcode::Family::Scan;
            return as_result(scan ? b.scan(op, in[0].vector, in[1].segdes)
                                  : b.reduce(op, in[0].vector, in[1].segdes));
          }};
}

auto one_segment = [](std::size_t n, Rng&) { return even_segments(n, 1); };

std::vector<Case> make_cases() {
  std::vector<Case> cases;
  cases.push_back(elementwise_case("add-int", "+ INT, two vectors", Op::Add, Type::Int, 2));
  cases.push_back(elementwise_case("add-float", "+ FLOAT, two vectors", Op::Add, Type::Float, 2));
  cases.push_back(elementwise_case("mul-float", "* FLOAT, two vectors", Op::Mul, Type::Float, 2));
  cases.push_back(elementwise_case("exp-float", "EXP FLOAT (libm)", Op::Exp, Type::Float, 1));
  cases.push_back(elementwise_case("sin-float", "SIN FLOAT (libm)", Op::Sin, Type::Float, 1));
  cases.push_back(
      segmented_case("scan-int", "+_SCAN INT, one segment", Op::PlusScan, Type::Int, one_segment));
  cases.push_back(segmented_case("scan-float", "+_SCAN FLOAT, one segment", Op::PlusScan,
                                 Type::Float, one_segment));
  cases.push_back(segmented_case("scan-many", "+_SCAN INT, segments of 0..16", Op::PlusScan,
                                 Type::Int,
                                 [](std::size_t n, Rng& r) { return random_segments(n, 8, r); }));
  cases.push_back(segmented_case("reduce-int", "+_REDUCE INT, one segment", Op::PlusReduce,
                                 Type::Int, one_segment));
  cases.push_back(segmented_case("reduce-few", "+_REDUCE INT, 8 equal segments", Op::PlusReduce,
                                 Type::Int,
                                 [](std::size_t n, Rng&) { return even_segments(n, 8); }));
  cases.push_back(segmented_case("reduce-many", "+_REDUCE INT, segments of 0..16", Op::PlusReduce,
                                 Type::Int,
                                 [](std::size_t n, Rng& r) { return random_segments(n, 8, r); }));
  cases.push_back(segmented_case("reduce-skewed",
                                 "+_REDUCE INT, one n/2 segment among ones of 0..2", Op::PlusReduce,
                                 Type::Int, skewed_segments));
  cases.push_back(segmented_case("reduce-float", "+_REDUCE FLOAT, segments of 0..16",
                                 Op::PlusReduce, Type::Float,
                                 [](std::size_t n, Rng& r) { return random_segments(n, 8, r); }));
  cases.push_back({"permute", "PERMUTE INT by a random permutation, one segment",
                   [](std::size_t n, Rng& rng) {
                     return std::vector<HostOperand>{random_ints(n, rng), permutation(n, rng),
                                                     even_segments(n, 1)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     cvl::PermuteOperands p;
                     p.values = in[0].vector;
                     p.indices = in[1].vector;
                     p.source_segdes = in[2].segdes;
                     return as_result(b.permute(Op::Permute, std::move(p)));
                   }});
  cases.push_back({"bpermute", "BPERMUTE INT, random indices (gather), one segment",
                   [](std::size_t n, Rng& rng) {
                     return std::vector<HostOperand>{
                         random_ints(n, rng),
                         random_ints(n, rng, 0, std::int32_t(std::max<std::size_t>(n, 1) - 1)),
                         even_segments(n, 1)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     cvl::PermuteOperands p;
                     p.values = in[0].vector;
                     p.indices = in[1].vector;
                     p.source_segdes = in[2].segdes;
                     p.dest_segdes = in[2].segdes;
                     return as_result(b.permute(Op::BPermute, std::move(p)));
                   }});
  cases.push_back({"pack", "PACK INT, half the flags set at random, one segment",
                   [](std::size_t n, Rng& rng) {
                     return std::vector<HostOperand>{random_ints(n, rng), random_flags(n, rng),
                                                     even_segments(n, 1)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     auto [v, sd] = b.pack(in[0].vector, in[1].vector, in[2].segdes);
                     return DeviceOperand{std::move(v), std::move(sd)};
                   }});
  cases.push_back(
      {"rank", "RANK_UP INT, random keys, one segment",
       [](std::size_t n, Rng& rng) {
         return std::vector<HostOperand>{random_ints(n, rng, 0, 1 << 30), even_segments(n, 1)};
       },
       [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
         return as_result(b.rank(Op::RankUp, in[0].vector, in[1].segdes));
       }});
  cases.push_back({"rank-float", "RANK_UP FLOAT, random keys, one segment",
                   [](std::size_t n, Rng& rng) {
                     return std::vector<HostOperand>{random_floats(n, rng), even_segments(n, 1)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     return as_result(b.rank(Op::RankUp, in[0].vector, in[1].segdes));
                   }});
  cases.push_back({"rank-many", "RANK_UP INT, segments of 0..200",
                   [](std::size_t n, Rng& rng) {
                     return std::vector<HostOperand>{random_ints(n, rng, 0, 1 << 30),
                                                     random_segments(n, 100, rng)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     return as_result(b.rank(Op::RankUp, in[0].vector, in[1].segdes));
                   }});
  cases.push_back({"dist", "DIST INT, one value per segment of 0..16",
                   [](std::size_t n, Rng& rng) {
                     HostOperand segments = random_segments(n, 8, rng);
                     HostOperand values = random_ints(segments.ints.size(), rng);
                     return std::vector<HostOperand>{std::move(values), std::move(segments)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     return as_result(b.distribute(in[0].vector, in[1].segdes));
                   }});
  cases.push_back({"make-segdes", "MAKE_SEGDES of lengths 0..16 totalling n",
                   [](std::size_t n, Rng& rng) {
                     HostOperand lengths = random_segments(n, 8, rng);
                     lengths.as_segdes = false;  // a plain INT vector: the op makes the segdes
                     return std::vector<HostOperand>{std::move(lengths)};
                   },
                   [](cvl::Backend& b, std::vector<DeviceOperand>& in) {
                     return DeviceOperand{{}, b.make_segdes(in[0].vector)};
                   }});
  return cases;
}

}  // namespace

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = make_cases();
  return cases;
}

const std::vector<std::string>& default_case_names() {
  static const std::vector<std::string> names{
      "add-int",    "add-float",   "exp-float",     "scan-int", "scan-float",
      "reduce-few", "reduce-many", "reduce-skewed", "permute",  "bpermute",
      "pack",       "rank",        "dist"};
  return names;
}

}  // namespace microbench
