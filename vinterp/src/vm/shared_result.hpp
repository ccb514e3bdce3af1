// What an effect on the outside world produced (a status message, the data read, a stream
// number, a time), as bytes that cvl::DistributedIo::share_from_io_root gives every process of a
// distributed run: the io root writes the values, every process reads them back in the same order.
// The bytes begin with whether the effect failed (then they hold its message).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cvl/errors.hpp"

namespace vm {

class SharedResult {
 public:
  SharedResult() = default;
  // The result of an effect that failed on the io root: every process fails with `message`.
  static SharedResult failure(const std::string& message) {
    SharedResult result;
    result.bytes_[0] = 1;
    result << message;
    return result;
  }

  std::string& bytes() { return bytes_; }
  bool failed() {
    if (bytes_.empty()) broken();
    return bytes_[0] == 1;
  }

  // Writing (on the io root).
  template <typename T>
    requires std::is_arithmetic_v<T>
  SharedResult& operator<<(T x) {
    bytes_.append(reinterpret_cast<const char*>(&x), sizeof x);
    return *this;
  }
  template <typename T>
  SharedResult& operator<<(const std::vector<T>& xs) {
    *this << static_cast<std::uint64_t>(xs.size());
    bytes_.append(reinterpret_cast<const char*>(xs.data()), xs.size() * sizeof(T));
    return *this;
  }
  SharedResult& operator<<(const std::string& text) {
    return *this << std::vector<char>(text.begin(), text.end());
  }

  // Reading (on every process, after the share), in the order written.
  template <typename T>
    requires std::is_arithmetic_v<T>
  SharedResult& operator>>(T& x) {
    std::memcpy(&x, take(sizeof x), sizeof x);
    return *this;
  }
  template <typename T>
  SharedResult& operator>>(std::vector<T>& xs) {
    std::uint64_t count = 0;
    *this >> count;
    if (count > (bytes_.size() - read_) / sizeof(T)) broken();
    xs.resize(count);
    if (count != 0) std::memcpy(xs.data(), take(count * sizeof(T)), count * sizeof(T));
    return *this;
  }
  SharedResult& operator>>(std::string& text) {
    std::vector<char> chars;
    *this >> chars;
    text.assign(chars.begin(), chars.end());
    return *this;
  }

 private:
  const char* take(std::size_t n) {
    if (n > bytes_.size() - read_) broken();
    const char* at = bytes_.data() + read_;
    read_ += n;
    return at;
  }
  // The processes read something other than what the root wrote: a bug in us or the backend.
  [[noreturn]] static void broken() {
    throw cvl::InternalError("the io root's shared result is shorter than what is read");
  }

  std::string bytes_ = std::string(1, '\0');  // 0, or 1 for a failure, then the values
  std::size_t read_ = 1;
};

}  // namespace vm
