// vm::Profile: the per-opcode table, including the backend columns a GPU backend fills in
// (launches, syncs, bytes moved), which are left out when they are zero throughout, and the peak
// bytes of a backend that counts its vector memory.
#include "vm/profile.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace {

std::string printed(vm::Profile& profile, const cvl::BackendStats& final) {
  std::FILE* file = std::tmpfile();
  REQUIRE(file);
  profile.print(file, 0.5, final, "fake-gpu");
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += char(c);
  std::fclose(file);
  return text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

cvl::BackendStats counters(std::uint64_t launches, std::uint64_t syncs, std::uint64_t to_device,
                           std::uint64_t to_host) {
  cvl::BackendStats s;
  s.kernel_launches = launches;
  s.host_syncs = syncs;
  s.bytes_to_device = to_device;
  s.bytes_to_host = to_host;
  return s;
}

}  // namespace

TEST_CASE("Profile without backend work keeps the classic columns", "[profile]") {
  vm::Profile profile;
  profile.record(vcode::Op::Add, 1e-6, 10, {}, {});
  profile.record(vcode::Op::Add, 1e-6, 10, {}, {});
  const std::string text = printed(profile, {});
  CHECK(contains(text, "opcode "));
  CHECK(contains(text, "elements             work\n"));
  CHECK_FALSE(contains(text, "launches"));
  CHECK_FALSE(contains(text, "syncs"));
  CHECK_FALSE(contains(text, "device"));
  CHECK(contains(text, "\n+ "));
}

TEST_CASE("Profile's work is each instruction's longest vector, at least 1", "[profile]") {
  vm::Profile profile;
  profile.record(vcode::Op::PlusReduce, 1e-6, 7, {}, {});
  profile.record_work(vcode::Op::PlusReduce, {5, 2, 2});  // 5 elements in 2 segments: 5
  profile.record(vcode::Op::Copy, 1e-6, 0, {}, {});
  profile.record_work(vcode::Op::Copy, {});  // a step that touches no vector: 1
  profile.record(vcode::Op::Lengths, 1e-6, 100, {}, {});
  profile.record_work(vcode::Op::Lengths, {3, 3});  // a segdes of 3 segments over 100: 3
  const std::string text = printed(profile, {});
  INFO(text);
  CHECK(contains(text, "               7                5\n"));
  CHECK(contains(text, "               0                1\n"));
  CHECK(contains(text, "             100                3\n"));
  CHECK(contains(text, "             107                9\n"));  // the total row
}

TEST_CASE("Profile shows the per-opcode deltas of the backend counters", "[profile]") {
  vm::Profile profile;
  // Counters are cumulative: the profile records what each instruction added.
  profile.record(vcode::Op::Add, 1e-6, 2000, counters(5, 1, 0, 0), counters(6, 1, 0, 0));
  profile.record(vcode::Op::Add, 1e-6, 2000, counters(6, 1, 0, 0), counters(7, 1, 0, 0));
  profile.record(vcode::Op::If, 1e-6, 1, counters(7, 1, 0, 0), counters(7, 2, 0, 4));
  profile.record_work(vcode::Op::Add, {1000, 1000});
  profile.record_work(vcode::Op::Add, {1000, 1000, 1000});
  profile.record_work(vcode::Op::If, {1});
  cvl::BackendStats final = counters(9, 2, 800, 4);
  final.device_bytes_peak = 3 * 1048576;
  const std::string text = printed(profile, final);
  INFO(text);
  CHECK(contains(text, "profile of backend fake-gpu: times are device times"));
  CHECK(contains(text, "launches"));
  CHECK(contains(text, "syncs"));
  CHECK(contains(text, "bytes to host"));
  CHECK_FALSE(contains(text, "bytes to dev "));  // no instruction moved bytes to the device
  // + : count 2, elements 4000, work 2000, launches 2, syncs 0, bytes to host 0
  CHECK(contains(text, "4000             2000              2              0              0\n"));
  // IF: work 1, launches 0, syncs 1, 4 bytes to the host
  CHECK(contains(text, "1                1              0              1              4\n"));
  CHECK(contains(text,
                 "device memory peak 3145728 bytes (3.0 MiB); in the whole run 800 bytes to the "
                 "device, 4 bytes to the host, 9 kernel launches, 2 host syncs (the "
                 "profiler's waits included), 0 other device copies and fills"));
  CHECK_FALSE(contains(text, " copies\n"));  // no instruction queued a copy: no column
}

TEST_CASE("Profile's peak bytes and peak added are each opcode's largest, and the run's peak in the summary",
          "[profile]") {
  vm::Profile plain;
  plain.record(vcode::Op::Add, 1e-6, 10, {}, {});
  const std::string without = printed(plain, {});
  CHECK_FALSE(contains(without, "peak bytes"));  // a backend that counts no memory: no column
  CHECK_FALSE(contains(without, "vector memory peak"));

  vm::Profile profile;
  profile.record_run_peak(100);  // the constants
  profile.record(vcode::Op::Add, 1e-6, 10, {}, {});
  profile.record_work(vcode::Op::Add, {10});
  profile.record_peak(vcode::Op::Add, 5000, 4000);
  profile.record(vcode::Op::Add, 1e-6, 10, {}, {});
  profile.record_work(vcode::Op::Add, {10});
  profile.record_peak(vcode::Op::Add, 3000, 4500);  // the row keeps 5000 and 4500
  profile.record(vcode::Op::Copy, 1e-6, 0, {}, {});
  profile.record_work(vcode::Op::Copy, {});
  profile.record_peak(vcode::Op::Copy, 700, 0);
  profile.record_run_peak(9000);  // the final stack dump: the run's peak, no opcode's
  const std::string text = printed(profile, {});
  INFO(text);
  CHECK(contains(text, "             work       peak bytes       peak added\n"));
  // + : elements, work, peak bytes, peak added
  CHECK(contains(text, "20               20             5000             4500\n"));
  CHECK(contains(text, "0                1              700                0\n"));  // COPY
  // total: the largest of each
  CHECK(contains(text, "20               21             5000             4500\n"));
  CHECK(contains(text, "vector memory peak 9000 bytes (0.0 MiB) in the whole run"));
}
