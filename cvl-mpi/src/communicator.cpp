#include "communicator.hpp"

#include <algorithm>

#include <climits>
#include <cstdlib>
#include <string>
#include <thread>

#include "cvl/errors.hpp"

namespace cvl::mpi {
namespace {

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

int checked_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error("a message of " + std::to_string(n) + " elements is longer than MPI counts allow");
  return static_cast<int>(n);
}

// More processes on this machine than cores: a process that waits in a collective must give its
// core to one that computes, or every wait lasts a scheduler slice, and a program of many
// collectives runs orders of magnitude slower (bench/RESULTS.md). Open MPI reads the setting at
// MPI_Init; one the user set is kept.
void yield_when_oversubscribed() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!local) return;
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores > 0 && std::strtoul(local, nullptr, 10) > cores)
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", /*overwrite=*/0);
}

}  // namespace

Communicator::Communicator() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    yield_when_oversubscribed();
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_dup(MPI_COMM_WORLD, &failures_);
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && failures_ != MPI_COMM_NULL) MPI_Comm_free(&failures_);
}

MPI_Datatype Communicator::element_type(std::size_t bytes) {
  for (auto& [size, type] : types_)
    if (size == bytes) return type;
  MPI_Datatype type;
  MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  types_.emplace_back(bytes, type);
  return type;
}

std::vector<std::size_t> Communicator::exchange_counts(const std::vector<std::size_t>& send_counts,
                                                       const std::optional<std::string>& error) {
  // A process that found an error sends this count to every process instead of its own.
  constexpr std::uint64_t kFailed = UINT64_MAX;
  std::vector<std::uint64_t> send(send_counts.begin(), send_counts.end()), recv(size_);
  if (error) std::fill(send.begin(), send.end(), kFailed);
  ++collectives_;
  MPI_Alltoall(send.data(), 1, MPI_UINT64_T, recv.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  count(size_ - 1, (size_ - 1) * sizeof(std::uint64_t));
  if (std::find(recv.begin(), recv.end(), kFailed) != recv.end()) {
    agree(error);  // every process got the mark: all agree here, on the lowest process's message
    throw InternalError("cvl-mpi: an error marked in the counts was not agreed");
  }
  return {recv.begin(), recv.end()};
}

void Communicator::exchange(const void* send, const std::vector<std::size_t>* send_at,
                            const std::vector<std::size_t>& send_counts, void* recv,
                            const std::vector<std::size_t>& recv_counts, std::size_t element_bytes) {
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  std::size_t s_at = 0, r_at = 0;
  for (int q = 0; q < size_; ++q) {
    sc[q] = checked_count(send_counts[q]);
    sd[q] = checked_count(send_at ? (*send_at)[q] : s_at);
    rc[q] = checked_count(recv_counts[q]);
    rd[q] = checked_count(r_at);
    s_at += send_counts[q];
    r_at += recv_counts[q];
    if (q != rank_ && send_counts[q] > 0) count(1, send_counts[q] * element_bytes);
  }
  const MPI_Datatype type = element_type(element_bytes);
  ++collectives_;
  MPI_Alltoallv(send, sc.data(), sd.data(), type, recv, rc.data(), rd.data(), type, MPI_COMM_WORLD);
}

void Communicator::allgatherv_bytes(const void* mine, const std::vector<std::size_t>& counts,
                                    void* out, std::size_t element_bytes) {
  std::vector<int> rc(size_), rd(size_);
  std::size_t at = 0;
  for (int q = 0; q < size_; ++q) {
    rc[q] = checked_count(counts[q]);
    rd[q] = checked_count(at);
    at += counts[q];
  }
  if (counts[rank_] > 0) count(size_ - 1, (size_ - 1) * counts[rank_] * element_bytes);
  ++collectives_;
  MPI_Allgatherv(mine, rc[rank_], element_type(element_bytes), out, rc.data(), rd.data(),
                 element_type(element_bytes), MPI_COMM_WORLD);
}

std::int64_t Communicator::sum_all(std::int64_t value) {
  std::int64_t out = 0;
  ++collectives_;
  MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  count(size_ - 1, (size_ - 1) * sizeof value);
  return out;
}

void Communicator::min_all(std::vector<std::uint64_t>& values) {
  ++collectives_;
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MIN,
                MPI_COMM_WORLD);
  count(size_ - 1, (size_ - 1) * values.size() * sizeof(std::uint64_t));
}

std::int64_t Communicator::sum_before(std::int64_t value) {
  std::int64_t out = 0;
  ++collectives_;
  MPI_Exscan(&value, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ + 1 < size_) count(1, sizeof value);
  return rank_ == 0 ? 0 : out;
}

void Communicator::broadcast(std::string& bytes, int root) {
  std::uint64_t length = bytes.size();
  ++collectives_;
  MPI_Bcast(&length, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  bytes.resize(length);
  if (length > 0) {
    ++collectives_;
    MPI_Bcast(bytes.data(), checked_count(length), MPI_CHAR, root, MPI_COMM_WORLD);
  }
  if (rank_ == root) count(size_ - 1, (size_ - 1) * (length + sizeof length));
}

void Communicator::barrier() { MPI_Barrier(MPI_COMM_WORLD); }

void Communicator::agree(const std::optional<std::string>& local_error) {
  int mine = local_error ? rank_ : size_, first = size_;
  ++collectives_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  count(size_ - 1, (size_ - 1) * sizeof mine);
  if (first == size_) return;
  std::string message = local_error ? *local_error : std::string();
  broadcast(message, first);
  agreed_ = true;
  throw Error(message);
}

void Communicator::throw_agreed(const std::string& message) {
  agreed_ = true;
  throw Error(message);
}

bool Communicator::all_arrive_within(std::chrono::milliseconds wait) {
  MPI_Request request;
  MPI_Ibarrier(failures_, &request);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;  // left pending: aborted next
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Communicator::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

}  // namespace cvl::mpi
