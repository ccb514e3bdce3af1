// What the command-line tests share: the programs under test and running them.
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"

namespace cli {

inline const std::string vinterp = VINTERP_PATH;
inline const std::string fcode_opt = FCODE_OPT_PATH;
inline const std::string test_dir = CLI_TEST_DIR;
inline const std::string program = test_dir + "/profile_counts.vcode";

inline corpus::ProcessResult run_command(std::vector<std::string> args) {
  auto result = corpus::run_process(args, "/tmp", "/dev/null", 60.0);
  INFO("stderr: " << result.err);
  REQUIRE(result.launch_error.empty());
  REQUIRE(result.exited);
  return result;
}

inline corpus::ProcessResult run_vinterp(std::vector<std::string> args) {
  args.insert(args.begin(), vinterp);
  return run_command(std::move(args));
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace cli
