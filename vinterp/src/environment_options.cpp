#include "environment_options.hpp"

#include <boost/program_options/parsers.hpp>
#include <cstdlib>

namespace vinterp {

std::vector<std::string> environment_options() {
  const char* value = std::getenv(options_variable);
  if (value == nullptr) return {};
  std::vector<std::string> words = boost::program_options::split_unix(value);
  std::erase(words, std::string());  // split_unix yields one empty word for a blank value
  return words;
}

}  // namespace vinterp
