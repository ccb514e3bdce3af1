// fused_bench: times FUSED (one superoperator) against the same expression run op by op on
// cvl-cpu, at 10^6 and 10^7 elements, with one thread and with all threads.
//
//   fused_bench [--sizes 1000000,10000000] [--runs 5] [--threads 1,0]
//
// One row per expression, size and thread count: the median wall times of the unfused ops and of
// FUSED (µs), and their ratio; descriptors have min(1000, n) equal segments where the expression
// names 1000. Results worth keeping go in bench/RESULTS.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cvl/unfused.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "vcode/parser.hpp"

namespace {

using cvl::Type;

struct Expression {
  const char* name;
  const char* definition;  // `SUPEROP 0 (...) ...`
  std::size_t segments;    // of every SEGDES operand (1 = one segment)
};

const Expression kExpressions[] = {
    {"polynomial (6 FLOAT ops)",
     "SUPEROP 0 (FLOAT) (+ FLOAT (* FLOAT (+ FLOAT (* FLOAT (+ FLOAT (* FLOAT $0 (CONST FLOAT 3.0)) "
     "(CONST FLOAT 2.0)) $0) (CONST FLOAT 1.5)) $0) (CONST FLOAT 1.0))", 1},
    {"option-like (EXP, SQRT, 9 ops)",
     "SUPEROP 0 (FLOAT FLOAT FLOAT) (- FLOAT (* FLOAT $0 (EXP (* FLOAT (CONST FLOAT -0.05) $2))) "
     "(* FLOAT $1 (SQRT (+ FLOAT $2 (* FLOAT $1 $1)))))", 1},
    {"dot product (map-reduce)", "SUPEROP 0 (FLOAT FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 $1) $2)", 1},
    {"segmented sum of squares, 1000 segs",
     "SUPEROP 0 (INT SEGDES) (+_REDUCE INT (* INT $0 $0) $1)", 1000},
    {"DIST/INDEX map, 1000 segs",
     "SUPEROP 0 (INT INT INT SEGDES) (+ INT (* INT $0 (DIST INT $1 $3)) (INDEX (CONST INT 0) $2 $3))", 1000},
    {"map-scan, 1000 segs", "SUPEROP 0 (INT SEGDES) (+_SCAN INT (* INT $0 (CONST INT 3)) $1)", 1000},
};

vcode::SuperOp parse(const char* definition) {
  return vcode::parse_program(std::string(definition) + "\nFUNC MAIN\nRET\n", "bench.fcode").superops[0];
}

std::vector<cvl::FusedOperand> make_operands(cvl::Backend& b, const vcode::SuperOp& op, std::size_t n,
                                             std::size_t segments, std::mt19937_64& rng) {
  auto uses = vcode::operand_uses(op);
  std::vector<cvl::FusedOperand> operands(op.operands.size());
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    if (op.operands[k] == vcode::TypeKeyword::Segdes) {
      std::vector<std::int32_t> lengths(segments, static_cast<std::int32_t>(n / segments));
      lengths.back() += static_cast<std::int32_t>(n % segments);
      operands[k].segdes = b.make_segdes(b.upload(Type::Int, lengths.data(), lengths.size()));
      continue;
    }
    std::size_t length = uses[k].elementwise ? n : segments;
    if (op.operands[k] == vcode::TypeKeyword::Float) {
      std::uniform_real_distribution<double> d(0.1, 2.0);
      std::vector<double> x(length);
      for (auto& v : x) v = d(rng);
      operands[k].vector = b.upload(Type::Float, x.data(), x.size());
    } else {
      std::uniform_int_distribution<std::int32_t> d(-1000, 1000);
      std::vector<std::int32_t> x(length);
      for (auto& v : x) v = d(rng);
      operands[k].vector = b.upload(Type::Int, x.data(), x.size());
    }
  }
  return operands;
}

template <class F>
double median_seconds(int runs, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<long> numbers(const std::string& list) {
  std::vector<long> out;
  std::stringstream in(list);
  std::string word;
  while (std::getline(in, word, ',')) out.push_back(std::atol(word.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> sizes = {1000000, 10000000}, thread_counts = {1, 0};
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    if (arg == "--sizes") sizes = numbers(argv[i + 1]);
    else if (arg == "--threads") thread_counts = numbers(argv[i + 1]);
    else if (arg == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: fused_bench [--sizes N,...] [--runs R] [--threads T,...]\n");
      return 2;
    }
  }
  std::printf("| expression | elements | threads | unfused µs | fused µs | unfused/fused |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  std::mt19937_64 rng(1);
  for (const Expression& e : kExpressions) {
    const vcode::SuperOp op = parse(e.definition);
    for (long n : sizes) {
      for (long threads : thread_counts) {
        auto backend = cvl::make_cpu_backend({static_cast<int>(threads)});
        const std::size_t segments = std::min<std::size_t>(e.segments, std::max(1L, n));
        auto operands = make_operands(*backend, op, static_cast<std::size_t>(n), segments, rng);
        auto fresh = [&] { return operands; };  // copies: shared handles, never written
        double plain = median_seconds(runs, [&] {
          auto o = fresh();
          cvl::run_unfused(*backend, op, o, static_cast<std::size_t>(n));
        });
        const auto prepared = backend->prepare(op);  // as vinterp does, once at load
        double fused = median_seconds(runs, [&] {
          auto o = fresh();
          backend->fused(*prepared, o, static_cast<std::size_t>(n));
        });
        std::printf("| %s | %ld | %s | %.1f | %.1f | %.2f |\n", e.name, n,
                    threads == 0 ? "all" : std::to_string(threads).c_str(), plain * 1e6, fused * 1e6,
                    plain / fused);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
