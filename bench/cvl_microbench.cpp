// cvl_microbench: per-operation timings of a CVL backend (cpu, cuda-emulated, cuda) through the
// same cvl::Backend interface the interpreter uses, against the bytes each operation must move;
// and (--threshold) the size below which small operations are faster on the host than on the
// device, to choose --host-threshold. See bench/README.md.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cvl/registry.hpp"
#include "microbench/cases.hpp"

namespace {

using microbench::Case;
using microbench::DeviceOperand;
using microbench::HostOperand;
using Clock = std::chrono::steady_clock;

const char* const usage_text =
    "usage: cvl_microbench [options]\n"
    "  --backend NAME        cpu (default), cuda-emulated, cuda: what this build has\n"
    "  --threads N           CPU threads of the backend (0 = all cores, default)\n"
    "  --device N            CUDA device (default 0)\n"
    "  --host-threshold N    passed to the backend (default: 0 here, so GPU backends run every\n"
    "                        operation on the device; -1 = the backend's own default)\n"
    "  --ops LIST            comma-separated case names, or 'all' (default: one of each family)\n"
    "  --sizes LIST          comma-separated element counts, 1e7 style allowed, or 'all'\n"
    "                        (= 1e3,1e4,...,1e8; default 1e3,1e5,1e7)\n"
    "  --reps N              timed repetitions per row (default: at least 3, until --min-time)\n"
    "  --min-time S          seconds of timed repetitions per row when --reps is not given (0.2)\n"
    "  --peak-gbps X         also print the fraction of X GB/s each row reaches\n"
    "  --threshold           time small operations on the host and on the device at\n"
    "                        n = 16..65536 and print where the device starts to win\n"
    "  --list                list the cases and exit\n"
    "  -h, --help            this text\n";

struct Options {
  std::string backend = "cpu";
  int threads = 0;
  int device = 0;
  long long host_threshold = 0;
  std::vector<std::string> ops;
  std::vector<std::size_t> sizes{1000, 100000, 10000000};
  int reps = 0;
  double min_time = 0.2;
  double peak_gbps = 0;
  bool threshold_mode = false;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "cvl_microbench: %s\n%s", message.c_str(), usage_text);
  std::exit(2);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

double parse_number(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    fail("not a number for " + option + ": " + text);
  return value;
}

long long parse_integer(const std::string& text, const std::string& option) {
  const double value = parse_number(text, option);
  if (value != std::floor(value) || std::fabs(value) > 9e18)
    fail(option + " needs an integer: " + text);
  return static_cast<long long>(value);
}

const Case& find_case(const std::string& name) {
  for (const Case& c : microbench::all_cases())
    if (c.name == name) return c;
  fail("unknown case '" + name + "' (--list shows them)");
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail("missing value for " + arg);
      return argv[++i];
    };
    if (arg == "--backend")
      o.backend = value();
    else if (arg == "--threads")
      o.threads = static_cast<int>(parse_integer(value(), arg));
    else if (arg == "--device")
      o.device = static_cast<int>(parse_integer(value(), arg));
    else if (arg == "--host-threshold")
      o.host_threshold = parse_integer(value(), arg);
    else if (arg == "--ops") {
      const std::string list = value();
      o.ops.clear();
      if (list == "all")
        for (const Case& c : microbench::all_cases()) o.ops.push_back(c.name);
      else
        for (const auto& name : split_list(list)) o.ops.push_back(find_case(name).name);
    } else if (arg == "--sizes") {
      const std::string list = value();
      o.sizes.clear();
      if (list == "all")
        for (std::size_t n = 1000; n <= 100000000; n *= 10) o.sizes.push_back(n);
      else
        for (const auto& item : split_list(list)) {
          const long long n = parse_integer(item, arg);
          if (n < 0) fail("--sizes needs non-negative sizes: " + item);
          o.sizes.push_back(static_cast<std::size_t>(n));
        }
      if (o.sizes.empty()) fail("--sizes needs at least one size");
    } else if (arg == "--reps") {
      o.reps = static_cast<int>(parse_integer(value(), arg));
      if (o.reps < 1) fail("--reps needs a positive count");
    } else if (arg == "--min-time")
      o.min_time = parse_number(value(), arg);
    else if (arg == "--peak-gbps") {
      o.peak_gbps = parse_number(value(), arg);
      if (o.peak_gbps <= 0) fail("--peak-gbps needs a positive number");
    } else if (arg == "--threshold")
      o.threshold_mode = true;
    else if (arg == "--list") {
      for (const Case& c : microbench::all_cases())
        std::printf("%-14s %s\n", c.name.c_str(), c.summary.c_str());
      std::exit(0);
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(usage_text, stdout);
      std::exit(0);
    } else
      fail("unknown argument " + arg);
  }
  if (o.threads < 0) fail("--threads must be 0 (all cores) or more");
  if (o.device < 0 || o.device > 9) fail("--device must be 0 to 9");
  if (o.host_threshold < -1) fail("--host-threshold must be -1 (backend default), 0 or more");
  if (o.ops.empty()) o.ops = microbench::default_case_names();
  return o;
}

std::unique_ptr<cvl::Backend> make_backend(const Options& o, long long host_threshold) {
  cvl::BackendOptions options;
  options.threads = o.threads;
  options.device = o.device;
  options.host_threshold = host_threshold;
  auto backend = cvl::make_backend(o.backend, options);
  if (!backend) {
    std::string names;
    for (const auto& name : cvl::available_backends()) names += " " + name;
    std::fprintf(stderr, "cvl_microbench: backend '%s' is not in this build (available:%s)\n",
                 o.backend.c_str(), names.c_str());
    std::exit(1);
  }
  return backend;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t m = xs.size() / 2;
  return xs.size() % 2 ? xs[m] : 0.5 * (xs[m - 1] + xs[m]);
}

std::size_t result_bytes(const DeviceOperand& r) {
  return r.vector.length * cvl::element_size(r.vector.type) +
         r.segdes.segments * sizeof(std::int32_t);
}

// Timings of one case at one size.
struct Measurement {
  double median_seconds = 0;
  double min_seconds = 0;
  int reps = 0;
  std::size_t bytes = 0;  // inputs read once plus the result written once
  double launches = 0;    // per run
  double syncs = 0;
};

// Repeats `once` (which returns its own elapsed seconds) after one warm-up run: `reps` times,
// or at least 3 times until `min_time` seconds are spent.
template <class Once>
std::vector<double> repeat(const Options& o, Once once) {
  once();  // warm-up: first-touch allocation, pools, module load
  std::vector<double> times;
  double spent = 0;
  while (true) {
    const double t = once();
    times.push_back(t);
    spent += t;
    if (o.reps ? int(times.size()) >= o.reps
               : (times.size() >= 3 && (spent >= o.min_time || times.size() >= 1000)))
      break;
  }
  return times;
}

// Steady state: inputs already on the backend; the clock stops after synchronize().
Measurement measure_resident(const Options& o, cvl::Backend& backend, const Case& c,
                             std::size_t n) {
  microbench::Rng rng(12345 + n);
  const std::vector<HostOperand> host = c.inputs(n, rng);
  std::vector<DeviceOperand> operands = microbench::upload(backend, host);
  backend.synchronize();
  Measurement m;
  for (const HostOperand& h : host) m.bytes += h.bytes();
  std::size_t out_bytes = 0;
  std::uint64_t launches = 0, syncs = 0, runs = 0;
  auto once = [&] {
    const auto start = Clock::now();
    const cvl::BackendStats before = backend.stats();
    DeviceOperand result = c.run(backend, operands);
    const cvl::BackendStats after = backend.stats();  // the operation's own, not our wait
    backend.synchronize();
    const double t = seconds_since(start);
    launches += after.kernel_launches - before.kernel_launches;
    syncs += after.host_syncs - before.host_syncs;
    ++runs;
    out_bytes = result_bytes(result);
    return t;  // the result is freed here, outside the timed region
  };
  std::vector<double> times = repeat(o, once);
  m.bytes += out_bytes;
  m.reps = int(times.size());
  m.launches = double(launches) / double(runs);
  m.syncs = double(syncs) / double(runs);
  m.median_seconds = median(times);
  m.min_seconds = *std::min_element(times.begin(), times.end());
  return m;
}

void print_machine_line(const Options& o) {
  std::printf(
      "# cvl_microbench: backend %s, threads %d (hardware threads %u), host threshold %lld, "
      "device %d\n",
      o.backend.c_str(), o.threads, std::thread::hardware_concurrency(), o.host_threshold,
      o.device);
}

int run_table(const Options& o) {
  auto backend = make_backend(o, o.host_threshold);
  print_machine_line(o);
  std::printf(
      "# time: median of the timed runs after one warm-up, synchronize() before the clock stops;\n"
      "# GB/s: bytes the operation must move (inputs read once, result written once) / median;\n"
      "# launches, syncs: the backend's kernel launches and host syncs per run (not counting the\n"
      "# synchronize() that stops the clock)\n");
  std::printf("%-14s %11s %6s %12s %12s %9s", "op", "n", "reps", "median us", "min us", "GB/s");
  if (o.peak_gbps > 0) std::printf(" %7s", "% peak");
  std::printf(" %9s %7s\n", "launches", "syncs");
  for (const std::string& name : o.ops) {
    const Case& c = find_case(name);
    for (std::size_t n : o.sizes) {
      Measurement m;
      try {
        m = measure_resident(o, *backend, c, n);
      } catch (const std::exception& e) {
        std::printf("%-14s %11zu  FAILED: %s\n", c.name.c_str(), n, e.what());
        std::fflush(stdout);
        continue;
      }
      const double gbps = m.median_seconds > 0 ? double(m.bytes) / m.median_seconds / 1e9 : 0.0;
      std::printf("%-14s %11zu %6d %12.2f %12.2f %9.2f", c.name.c_str(), n, m.reps,
                  1e6 * m.median_seconds, 1e6 * m.min_seconds, gbps);
      if (o.peak_gbps > 0) std::printf(" %6.1f%%", 100.0 * gbps / o.peak_gbps);
      std::printf(" %9.1f %7.1f\n", m.launches, m.syncs);
      std::fflush(stdout);
    }
  }
  return 0;
}

// One small operation from host data to a host result: upload, run, download. This is the cost
// an operation on small host-resident inputs has when it runs on the device instead of the host.
double round_trip_seconds(const Options& o, cvl::Backend& backend, const Case& c,
                          const std::vector<HostOperand>& host) {
  std::vector<char> sink;
  auto once = [&] {
    const auto start = Clock::now();
    std::vector<DeviceOperand> operands = microbench::upload(backend, host);
    DeviceOperand result = c.run(backend, operands);
    const cvl::Vector& v = result.vector;
    sink.resize(v.length * cvl::element_size(v.type) + 1);
    if (v.length) backend.download(v, 0, v.length, sink.data());
    backend.synchronize();
    return seconds_since(start);
  };
  return median(repeat(o, once));
}

int run_threshold(Options o) {
  if (o.min_time == 0.2) o.min_time = 0.05;  // small operations: many repetitions are cheap
  if (o.ops == microbench::default_case_names())
    o.ops = {"add-int", "add-float", "exp-float", "scan-int", "reduce-many",
             "permute", "pack",      "rank",      "dist"};
  // The same backend twice: everything on the host, everything on the device.
  auto on_host = make_backend(o, LLONG_MAX);
  auto on_device = make_backend(o, 0);
  print_machine_line(o);
  std::printf(
      "# host threshold: median time of upload + operation + download of the result, with the\n"
      "# backend's host threshold at its maximum (host) and at 0 (device); the device wins\n"
      "# where it is at least 10%% faster\n");
  std::printf("%-14s %8s %12s %12s %10s\n", "op", "n", "host us", "device us", "host/dev");
  std::vector<std::size_t> crossovers;
  std::vector<std::string> summary;
  for (const std::string& name : o.ops) {
    const Case& c = find_case(name);
    std::size_t crossover = 0;  // the smallest n from which the device wins at every size; 0: none
    for (std::size_t n = 16; n <= 65536; n *= 2) {
      microbench::Rng rng(777 + n);
      const std::vector<HostOperand> host = c.inputs(n, rng);
      double host_s = 0, device_s = 0;
      try {
        host_s = round_trip_seconds(o, *on_host, c, host);
        device_s = round_trip_seconds(o, *on_device, c, host);
      } catch (const std::exception& e) {
        std::printf("%-14s %8zu  FAILED: %s\n", c.name.c_str(), n, e.what());
        continue;
      }
      std::printf("%-14s %8zu %12.2f %12.2f %10.2f\n", c.name.c_str(), n, 1e6 * host_s,
                  1e6 * device_s, device_s > 0 ? host_s / device_s : 0.0);
      std::fflush(stdout);
      // The device must win clearly (by 10%): equal times are noise, and the host is simpler.
      if (device_s >= 0.9 * host_s)
        crossover = 0;
      else if (crossover == 0)
        crossover = n;
    }
    if (crossover) {
      crossovers.push_back(crossover);
      summary.push_back(c.name + ": the device wins from n = " + std::to_string(crossover));
    } else {
      summary.push_back(
          c.name + ": the host wins up to n = 65536 (or the device loses at the largest size)");
    }
  }
  for (const auto& line : summary) std::printf("# %s\n", line.c_str());
  if (!crossovers.empty()) {
    std::sort(crossovers.begin(), crossovers.end());
    std::printf(
        "# suggested --host-threshold: %zu (the median crossover of the operations above; an "
        "operation runs on the host at n <= threshold)\n",
        crossovers[crossovers.size() / 2] / 2);
  } else {
    std::printf("# suggested --host-threshold: at least 65536 (the device never won)\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  try {
    return options.threshold_mode ? run_threshold(options) : run_table(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cvl_microbench: %s\n", e.what());
    return 1;
  }
}
