#include "common.hpp"

#include <omp.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace baseline {

namespace {

long parse_count(const char* program, const char* option, const char* text, long min) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > 2000000000L) {
    std::fprintf(stderr, "%s: %s needs an integer from %ld to 2000000000, not '%s'\n", program, option, min,
                 text);
    std::exit(2);
  }
  return value;
}

}  // namespace

Options parse_options(int argc, char** argv, const char* program, long default_size, const char* usage_extra) {
  Options options;
  options.size = default_size;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (std::strcmp(arg, "--size") == 0 && has_value) {
      options.size = parse_count(program, "--size", argv[++i], 1);
    } else if (std::strcmp(arg, "--threads") == 0 && has_value) {
      options.threads = static_cast<int>(parse_count(program, "--threads", argv[++i], 0));
    } else if (std::strcmp(arg, "--verify") == 0) {
      options.verify = true;
    } else if (std::strcmp(arg, "-h") == 0 || std::strcmp(arg, "--help") == 0) {
      std::printf(
          "usage: %s [--size N] [--threads N] [--verify]\n"
          "  --size N     problem size (default %ld)%s\n"
          "  --threads N  OpenMP threads (default 0 = all cores)\n"
          "  --verify     also compute the result the plain serial way and compare (exit 1 if they differ)\n",
          program, default_size, usage_extra);
      std::exit(0);
    } else {
      std::fprintf(stderr, "%s: unknown or incomplete argument '%s' (--help lists the options)\n", program, arg);
      std::exit(2);
    }
  }
  if (options.threads > 0) omp_set_num_threads(options.threads);
  return options;
}

void fail(const std::string& program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str());
  std::exit(1);
}

int nesl_rand_int(int bound) { return static_cast<int>(random() % bound); }

double nesl_rand_float(double scale) {
  constexpr int two_30 = 1 << 30;
  return scale * (static_cast<double>(nesl_rand_int(two_30)) / static_cast<double>(two_30));
}

void warm_up_threads() {
#pragma omp parallel
  {
  }
}

void print_float(double value) { std::printf("( %.14e )\n", value); }

void print_int(long value) { std::printf("( %ld )\n", value); }

bool agree(const char* what, const std::vector<double>& ours, const std::vector<double>& reference) {
  if (ours.size() != reference.size()) {
    std::fprintf(stderr, "verify %s: %zu results, the reference has %zu\n", what, ours.size(), reference.size());
    return false;
  }
  double worst = 0;
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    const double difference = std::fabs(ours[i] - reference[i]);
    const double scale = std::fmax(std::fabs(ours[i]), std::fabs(reference[i]));
    if (scale > 0) worst = std::fmax(worst, difference / scale);
    if (!(difference <= 1e-9 * scale || difference <= 1e-12)) {
      if (mismatches++ == 0) first = i;
    }
  }
  if (mismatches > 0) {
    std::fprintf(stderr, "verify %s: %zu of %zu differ; first at %zu: %.17g, reference %.17g\n", what, mismatches,
                 ours.size(), first, ours[first], reference[first]);
    return false;
  }
  std::fprintf(stderr, "verify %s: ok, %zu values, largest relative difference %.3g\n", what, ours.size(), worst);
  return true;
}

}  // namespace baseline
