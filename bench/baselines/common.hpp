// What every hand-written baseline shares: the command line, the NESL program's input stream
// (glibc's random(), as the classic interpreter's RAND uses it), the timer, and printing in the
// interpreter's format, so a baseline's stdout reads like the NESL program's.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace baseline {

struct Options {
  long size = 0;      // the problem size (the NESL program's first CONST INT)
  int threads = 0;    // OpenMP threads; 0 = all cores
  bool verify = false;
};

// Parses `[--size N] [--threads N] [--verify]`; on a bad argument prints a message naming the
// program and the argument, and exits with status 2.
Options parse_options(int argc, char** argv, const char* program, long default_size, const char* usage_extra = "");

// Prints a message naming the program and exits with status 1.
[[noreturn]] void fail(const std::string& program, const std::string& message);

// The NESL library's random numbers, drawn from one stream in index order like the classic
// interpreter's RAND (spec CVL §7): `random() % bound`, and NESL's float rand(v), defined as
// v * (float(rand(2^30)) / float(2^30)).
int nesl_rand_int(int bound);
double nesl_rand_float(double scale);

// Seconds of wall time, like the VCODE timer.
class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Starts the OpenMP threads before a timed region (vinterp's are running by then too).
void warm_up_threads();

// One stack entry as vinterp prints it: `( 1.50000000000000e+00 )` and `( 42 )`.
void print_float(double value);
void print_int(long value);

// --verify: |ours - reference| <= 1e-9 relative (the corpus tolerance) or 1e-12 absolute, for
// every element; prints a one-line summary on stderr and returns whether all agreed.
bool agree(const char* what, const std::vector<double>& ours, const std::vector<double>& reference);

}  // namespace baseline
