// The memory a scatter packs its messages into and receives them in, kept from one exchange to
// the next: freed and allocated again, a buffer of many megabytes comes back as fresh pages, and
// the first write to each costs a fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace cvl::mpi {

class MessageBuffers {
 public:
  // Room for `words` 8-byte words to send, and to receive: each valid until the next call for it.
  std::uint64_t* send(std::size_t words) { return send_.room(words); }
  std::uint64_t* receive(std::size_t words) { return receive_.room(words); }

 private:
  struct Buffer {
    std::uint64_t* room(std::size_t words) {
      if (words > capacity) {
        words_.reset();  // before the new one: never both at once
        words_.reset(new std::uint64_t[words]);
        capacity = words;
      }
      return words_.get();
    }
    std::unique_ptr<std::uint64_t[]> words_;
    std::size_t capacity = 0;
  };
  Buffer send_, receive_;
};

}  // namespace cvl::mpi
