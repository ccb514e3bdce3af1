// A local block's elements for cvl-mpi's host loops, read and written in the local CVL's own
// memory (cvl-cpu's, this process's: cvl::HostMemory), with no copy to the host and back.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "cvl/backend.hpp"
#include "cvl/errors.hpp"

namespace cvl::mpi {

inline HostMemory& host_memory_of(Backend& local) {
  HostMemory* memory = local.host_memory();
  if (!memory) throw InternalError("cvl-mpi: the local CVL's vectors are not in host memory");
  return *memory;
}

// The elements of a local vector, read only. Holding it keeps the vector's storage, so that no
// op reuses that storage meanwhile: drop it before giving the vector to one.
template <class T>
class HostView {
 public:
  HostView(Backend& local, const Vector& v) : size_(v.length.get()), kept_(v) {
    if (size_ > 0) data_ = static_cast<const T*>(host_memory_of(local).host_elements(v));
  }
  std::size_t size() const { return size_; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  std::size_t size_;
  const T* data_ = nullptr;
  Vector kept_;
};

// A local vector to write on the host, then taken with finish(): new (its elements undefined
// until written), or the elements of a vector to change.
template <class T>
class HostVector {
 public:
  static HostVector fresh(Backend& local, Type type, std::size_t length) {
    HostVector out;
    void* elements = nullptr;
    out.vector_ = host_memory_of(local).new_host_vector(type, length, &elements);
    out.data_ = static_cast<T*>(elements);
    return out;
  }
  // `v`'s elements to change: in place where this handle is its storage's only one, else a copy.
  static HostVector changing(Backend& local, Vector&& v) {
    HostMemory& memory = host_memory_of(local);
    if (void* elements = memory.writable_elements(v)) {
      HostVector out;
      out.vector_ = std::move(v);
      out.data_ = static_cast<T*>(elements);
      return out;
    }
    const std::size_t length = v.length.get();
    HostVector out = fresh(local, v.type, length);
    if (length > 0) std::memcpy(out.data_, memory.host_elements(v), length * sizeof(T));
    return out;
  }

  T* data() { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  Vector finish() && { return std::move(vector_); }

 private:
  HostVector() = default;
  T* data_ = nullptr;
  Vector vector_;
};

// An array of n elements of T (1, 4 or 8 bytes) for a host loop or a message, undefined until
// written, from the local CVL's memory, which keeps freed pages resident for the next request
// (a fresh page costs a fault, several microseconds on a VM): given back when dropped.
template <class T>
HostVector<T> scratch(Backend& local, std::size_t n) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8);
  return HostVector<T>::fresh(local, sizeof(T) == 8 ? Type::Float : sizeof(T) == 4 ? Type::Int : Type::Bool, n);
}

}  // namespace cvl::mpi
