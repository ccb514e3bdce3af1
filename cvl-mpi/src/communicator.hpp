// MPI_COMM_WORLD as the backend uses it: the collectives it needs, typed, each counting itself and
// the messages and bytes this process sends (for --profile), and the one way a data error found on
// some processes becomes the same error on all of them (agree).
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace cvl::mpi {

class Communicator {
 public:
  Communicator();  // MPI_Init if needed; MPI is finalized at exit
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

  std::uint64_t messages_sent() const { return messages_; }
  std::uint64_t bytes_sent() const { return bytes_; }
  // MPI collective calls made, barriers (waits) left out: the same on every process, since all of
  // them make each one.
  std::uint64_t collectives() const { return collectives_; }

  // Every process's `value`, in process order.
  template <class T>
  std::vector<T> allgather(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(size_);
    ++collectives_;
    MPI_Allgather(&value, sizeof(T), MPI_BYTE, out.data(), sizeof(T), MPI_BYTE, MPI_COMM_WORLD);
    count(size_ - 1, (size_ - 1) * sizeof(T));
    return out;
  }

  // Sends send[...] in runs: send_counts[q] elements to process q, in order; receives
  // recv_counts[q] from each q, concatenated in process order.
  template <class T>
  std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<std::size_t>& send_counts,
                           const std::vector<std::size_t>& recv_counts) {
    std::vector<T> out(sum(recv_counts));
    alltoallv(send.data(), send_counts, out.data(), recv_counts);
    return out;
  }
  // The same from `send` into `out`, which has room for the sum of recv_counts.
  template <class T>
  void alltoallv(const T* send, const std::vector<std::size_t>& send_counts, T* out,
                 const std::vector<std::size_t>& recv_counts) {
    static_assert(std::is_trivially_copyable_v<T>);
    exchange(send, nullptr, send_counts, out, recv_counts, sizeof(T));
  }
  // The same where what goes to process q starts at send + send_at[q] (the parts may overlap).
  template <class T>
  void alltoallv(const T* send, const std::vector<std::size_t>& send_at,
                 const std::vector<std::size_t>& send_counts, T* out,
                 const std::vector<std::size_t>& recv_counts) {
    static_assert(std::is_trivially_copyable_v<T>);
    exchange(send, &send_at, send_counts, out, recv_counts, sizeof(T));
  }
  // The same, with the receive counts exchanged first (and `error`, as exchange_counts does).
  template <class T>
  std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<std::size_t>& send_counts,
                           const std::optional<std::string>& error = std::nullopt) {
    return alltoallv(send, send_counts, exchange_counts(send_counts, error));
  }
  // What each process will send this one. `error`: a data error this process found before the
  // exchange; the counts carry it to every process, which then agree on it (agree) and throw,
  // so that an operation's check and its exchange take one collective.
  std::vector<std::size_t> exchange_counts(const std::vector<std::size_t>& send_counts,
                                           const std::optional<std::string>& error = std::nullopt);

  // Every process gets the concatenation of every process's `mine`, in process order, where
  // process q gives counts[q] elements (known to all).
  template <class T>
  void allgatherv(const T* mine, const std::vector<std::size_t>& counts, T* out) {
    allgatherv_bytes(mine, counts, out, sizeof(T));
  }

  // The sum over processes, and the sum over the processes before this one.
  std::int64_t sum_all(std::int64_t value);
  // Each element becomes its least over processes (every process passes as many).
  void min_all(std::vector<std::uint64_t>& values);
  std::int64_t sum_before(std::int64_t value);

  // `bytes` on every process becomes process `root`'s.
  void broadcast(std::string& bytes, int root);
  void barrier();

  // A data error some processes may have found: every process throws the same cvl::Error, the
  // message of the lowest process that found one, or returns when none did. A collective.
  void agree(const std::optional<std::string>& local_error);
  // Throws the cvl::Error that every process found alike from data all of them hold (a gathered
  // value), marked as agreed without a collective of its own.
  [[noreturn]] void throw_agreed(const std::string& message);
  // Whether the last error this process threw came from agree (every process threw it).
  bool last_error_agreed() const { return agreed_; }
  void forget_error() { agreed_ = false; }

  [[noreturn]] void abort(int status);
  // Whether every process calls this within `wait` of this one (each after an error it saw
  // alone). Its barrier is on a communicator of its own, so that it never matches a collective
  // that another process is waiting in.
  bool all_arrive_within(std::chrono::milliseconds wait);

  static std::size_t sum(const std::vector<std::size_t>& v) {
    std::size_t s = 0;
    for (auto x : v) s += x;
    return s;
  }

 private:
  // send_at: where each process's part starts (null: one after another from `send`).
  void exchange(const void* send, const std::vector<std::size_t>* send_at,
                const std::vector<std::size_t>& send_counts, void* recv,
                const std::vector<std::size_t>& recv_counts, std::size_t element_bytes);
  void allgatherv_bytes(const void* mine, const std::vector<std::size_t>& counts, void* out,
                        std::size_t element_bytes);
  MPI_Datatype element_type(std::size_t bytes);
  void count(std::uint64_t messages, std::uint64_t bytes) {
    messages_ += messages;
    bytes_ += bytes;
  }

  int rank_ = 0;
  int size_ = 1;
  std::uint64_t messages_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t collectives_ = 0;
  bool agreed_ = false;
  MPI_Comm failures_ = MPI_COMM_NULL;  // all_arrive_within's own
  std::vector<std::pair<std::size_t, MPI_Datatype>> types_;
};

}  // namespace cvl::mpi
