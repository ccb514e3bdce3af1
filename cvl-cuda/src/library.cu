// Thrust and CUB behind library.hpp. Combining operators come from the shared scalar semantics;
// FLOAT MAX/MIN go through NaN-aware summaries (below) so that any grouping gives cvl-cpu's
// sequential result exactly.
#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <string>
#include <type_traits>

#include "check.hpp"
#include "cvl/nan_fold.hpp"
#include "cvl/op_dispatch.hpp"
#include "library.hpp"
#include "traffic.hpp"
#if CVL_CUDA_REAL
#include <thrust/system/cuda/execution_policy.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#else
#include <thrust/system/cpp/execution_policy.h>
#endif

namespace cvl::CVL_CUDA_NS::library {
namespace {

using vcode::Op;

#if CVL_CUDA_REAL
// Thrust temporaries come from the backend's pool, stream-ordered, never cudaMalloc.
struct PoolAllocator {
  using value_type = char;
  Device* device;
  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(device->allocate(static_cast<std::size_t>(bytes)));
  }
  void deallocate(char* pointer, std::size_t bytes) { device->release(pointer, bytes); }
};
// Runs call(policy), a Thrust algorithm, on the backend's stream; it reads and writes `bytes`.
template <class Call>
void on_stream(Device& device, std::uint64_t bytes, Call call) {
  device.count_library_call(bytes);
  thrust_checked([&] { call(thrust::cuda::par_nosync(PoolAllocator{&device}).on(device.stream())); });
}
// CUB's two-phase calls: size query, then the run with temporary storage from the pool; the run
// reads and writes `traffic` bytes.
template <class Call>
void with_cub_temp(Device& device, std::uint64_t traffic, Call call) {
  std::size_t bytes = 0;
  CVL_CUDA_CHECK(call(static_cast<void*>(nullptr), bytes));
  // Never a null pointer: CUB would take it for another size query and do nothing.
  DeviceBuffer temp(borrow(device), bytes > 0 ? bytes : 1);
  device.count_library_call(traffic);
  CVL_CUDA_CHECK(call(temp.get(), bytes));
}
#else
// Runs call(policy), a Thrust algorithm over host memory, in stream order: queued with the
// launches and copies, so it takes its operands by value. `bytes` is what the GPU build's call
// reads and writes.
template <class Call>
void on_stream(Device& device, std::uint64_t bytes, Call call) {
  device.count_library_call(bytes);
  device.enqueue([call] { thrust_checked([&] { call(thrust::cpp::par); }); });
}
#endif

auto segment_keys(const SegmentKey& keys) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), keys);
}

// ---- combining operators ------------------------------------------------------------------

// A scan or reduce row's cvl_sem combiner (ops.def Sem) as the function object Thrust and CUB take.
template <class Sem, class T>
struct Combine {
  static CVL_HD T identity() { return Sem::identity(T{}); }
  CVL_HD T operator()(T s, T x) const { return Sem::apply(s, x); }
};

// FLOAT MAX/MIN are not associative with NaNs (cvl/nan_fold.hpp). A run of elements acts on the
// running value as one of: nothing (empty), s -> f(s, v) (no NaN in the run), or s -> v (the run
// holds a NaN; v is where it leaves the running value): cvl::continue_fold. These compose
// associatively, and applying the composition to the identity gives exactly the sequential fold.
struct Summary {
  double value;
  int kind;  // 0 empty, 1 s -> f(s, value), 2 s -> value
};
template <bool kMax>
CVL_HD double pick(double s, double x) {
  return kMax ? cvl_sem::Max::apply(s, x) : cvl_sem::Min::apply(s, x);
}
template <bool kMax>
struct ToSummary {
  CVL_HD Summary operator()(double x) const { return {x, x != x ? 2 : 1}; }
};
template <bool kMax>
struct ComposeSummary {
  using Sem = std::conditional_t<kMax, cvl_sem::Max, cvl_sem::Min>;
  CVL_HD Summary operator()(Summary left, Summary right) const {
    if (right.kind == 0) return left;
    if (left.kind == 0) return right;
    const bool right_has_nan = right.kind == 2;
    return {continue_fold<Sem>(left.value, right.value, right_has_nan),
            right_has_nan ? 2 : left.kind};
  }
};
template <bool kMax>
struct FinishSummary {
  CVL_HD double operator()(Summary s) const {
    const double identity = kMax ? cvl_sem::Max::identity(0.0) : cvl_sem::Min::identity(0.0);
    return s.kind == 0 ? identity : s.kind == 2 ? s.value : pick<kMax>(identity, s.value);
  }
};

// ---- scans --------------------------------------------------------------------------------

// A scan is right at every element whatever follows it, so elements past a pending count need no
// care: they are scanned as one more run. One pass (Thrust's decoupled look-back scan), reading
// and writing `element_bytes` an element, and finding its segment where there are several.
template <class V, class In, class Out, class F>
void exclusive_scan_segments(Device& device, In in, Out out, const SegmentKey& keys,
                             std::size_t n, std::uint64_t element_bytes, V init, F f) {
  if (n == 0) return;
  if (keys.sd.segments == 1) {
    on_stream(device, n * element_bytes,
              [=](auto policy) { thrust::exclusive_scan(policy, in, in + n, out, init, f); });
    return;
  }
  const std::uint64_t bytes = (traffic::segment_of(keys.sd) + Traffic{element_bytes, 0}).over(n);
  on_stream(device, bytes, [=](auto policy) {
    thrust::exclusive_scan_by_key(policy, segment_keys(keys), segment_keys(keys) + n, in, out, init,
                                  thrust::equal_to<std::uint32_t>(), f);
  });
}

template <class Sem, class T>
void scan_typed(Device& device, const void* in, void* out, const SegmentKey& keys,
                std::size_t n) {
  exclusive_scan_segments(device, static_cast<const T*>(in), static_cast<T*>(out), keys, n,
                          2 * sizeof(T), Combine<Sem, T>::identity(), Combine<Sem, T>());
}

template <bool kMax>
void scan_float_extremum(Device& device, const void* in, void* out, const SegmentKey& keys,
                         std::size_t n) {
  DeviceBuffer summaries(borrow(device), n * sizeof(Summary));
  auto* s = summaries.as<Summary>();
  exclusive_scan_segments(
      device, thrust::make_transform_iterator(static_cast<const double*>(in), ToSummary<kMax>()), s,
      keys, n, sizeof(double) + sizeof(Summary), Summary{0.0, 0}, ComposeSummary<kMax>());
  if (n > 0)
    on_stream(device, n * (sizeof(Summary) + sizeof(double)), [=](auto policy) {
      thrust::transform(policy, s, s + n, static_cast<double*>(out), FinishSummary<kMax>());
    });
}

// ---- reductions ---------------------------------------------------------------------------

// The value a reduction stores per segment: the fold itself, or (FLOAT MAX/MIN) the double its
// summary stands for, applied where the result is written so that it takes no launch of its own.
template <class V>
struct AsIs {
  CVL_HD V operator()(V v) const { return v; }
};

// Every segment's result after a reduce-by-key, in one launch over max(segments, runs) items:
// finish(f(init, aggregate[r])) for the runs found (reduce-by-key starts a run from its first
// element, the sequential fold from the identity, and only the latter turns a lone -0.0 into 0.0
// (+_REDUCE FLOAT), so the identity is applied here), and finish(init) for each segment with no
// element below n, which has no run (empty, or past a pending count, where the offsets make it
// empty). The two writes never meet in one segment, so nothing needs filling first.
template <class V, class Out, class F, class Finish>
struct StoreSegments {
  const std::uint32_t* unique;
  const V* aggregates;
  const std::int64_t* runs;
  SegmentView sd;
  std::size_t n;  // elements reduced
  Out* result;
  V init;
  F f;
  Finish finish;
  CVL_HD void operator()(std::size_t i) const {
    if (i < sd.segments && (sd.length(i) == 0 || sd.start(i) >= n)) result[i] = finish(init);
    // Runs of keys past the real segments (pending counts) are dropped.
    if (static_cast<std::int64_t>(i) < *runs && unique[i] < sd.segments)
      result[unique[i]] = finish(f(init, aggregates[i]));
  }
};
// result[k] = the fold of segment k from `init`, in order, by one thread: a small reduction in one
// launch, with the sequential order of the classic and of cvl-cpu at one thread.
template <class V, class Out, class In, class F, class Finish>
struct FoldSegments {
  In in;
  Out* result;
  SegmentView sd;
  std::size_t n;  // elements that may be read
  V init;
  F f;
  Finish finish;
  CVL_HD void operator()(std::size_t k) const {
    V value = init;
    const std::size_t end = sd.start(k) + sd.length(k) < n ? sd.start(k) + sd.length(k) : n;
    for (std::size_t j = sd.start(k); j < end; ++j) value = f(value, in[j]);
    result[k] = finish(value);
  }
};

// One value per segment of the first n elements (V elements, read through `in`, `in_bytes` each)
// into result (finish(V) each), in one launch where it can. At most cuda_tuning::kSmallFoldElements elements:
// one thread per segment (FoldSegments), in cvl-cpu's sequential order. Otherwise one segment of
// a known count takes a plain reduction, which may also reorder operands: only for commutative
// operators (the FLOAT MAX/MIN summaries are not; reduce-by-key keeps the order). Else
// load-balanced: a reduce-by-key over the segment keys, so one giant segment among many tiny ones
// costs what its elements cost, and only non-empty segments produce a run; the elements past a
// pending count have keys past the last segment, and their runs are dropped (two launches).
template <bool kCommutative, class V, class Out, class In, class F, class Finish>
void reduce_segments(Device& device, In in, std::size_t in_bytes, Out* result,
                     const SegmentKey& keys, std::size_t n, V init, F f, Finish finish) {
  const std::size_t m = keys.sd.segments;
  if (m == 0) return;
  if (!reduce_reads_index(n)) {
    // Per segment its start and result; the elements once.
    device.launch(m, FoldSegments<V, Out, In, F, Finish>{in, result, keys.sd, n, init, f, finish},
                  traffic::offsets(keys.sd) + Traffic{sizeof(Out), n * in_bytes});
    return;
  }
  if constexpr (kCommutative) {
    static_assert(std::is_same_v<V, Out>, "a plain reduction stores its fold as it is");
    if (m == 1 && !keys.total) {
#if CVL_USE_CUB
      with_cub_temp(device, n * in_bytes + sizeof(V), [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Reduce(temp, bytes, in, result, static_cast<std::int64_t>(n), f,
                                         init, device.stream());
      });
#else
      on_stream(device, n * in_bytes + sizeof(V),
                [=](auto policy) { *result = thrust::reduce(policy, in, in + n, init, f); });
#endif
      return;
    }
  }
  // One run more than segments: the elements past a pending count.
  auto owner = borrow(device);
  const std::size_t most_runs = m + 1;
  DeviceBuffer unique(owner, most_runs * sizeof(std::uint32_t)),
      aggregates(owner, most_runs * sizeof(V)), runs(owner, sizeof(std::int64_t));
  // The elements and their segments read; a key and an aggregate written per run, and the count.
  const std::uint64_t by_key =
      (traffic::segment_of(keys.sd) + Traffic{in_bytes, 0}).over(n) +
      most_runs * (sizeof(std::uint32_t) + sizeof(V)) + sizeof(std::int64_t);
#if CVL_USE_CUB
  with_cub_temp(device, by_key, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceReduce::ReduceByKey(temp, bytes, segment_keys(keys),
                                          unique.as<std::uint32_t>(), in, aggregates.as<V>(),
                                          runs.as<std::int64_t>(), f,
                                          static_cast<std::int64_t>(n), device.stream());
  });
#else
  on_stream(device, by_key, [=, unique = unique.as<std::uint32_t>(), aggregates = aggregates.as<V>(),
                     runs = runs.as<std::int64_t>()](auto policy) {
    auto ends = thrust::reduce_by_key(policy, segment_keys(keys), segment_keys(keys) + n, in,
                                      unique, aggregates, thrust::equal_to<std::uint32_t>(), f);
    *runs = ends.first - unique;
  });
#endif
  // Per run its key and aggregate, the segment's start, the result; the run count once.
  device.launch(most_runs,
                StoreSegments<V, Out, F, Finish>{unique.as<std::uint32_t>(), aggregates.as<V>(),
                                                 runs.as<std::int64_t>(), keys.sd, n, result,
                                                 init, f, finish},
                traffic::offsets(keys.sd) +
                    Traffic{sizeof(std::uint32_t) + sizeof(V) + sizeof(Out), sizeof(std::int64_t)});
}

template <class Sem, class T>
void reduce_typed(Device& device, const void* in, void* out, const SegmentKey& keys,
                  std::size_t n) {
  reduce_segments<true>(device, static_cast<const T*>(in), sizeof(T), static_cast<T*>(out), keys,
                        n, Combine<Sem, T>::identity(), Combine<Sem, T>(), AsIs<T>());
}

template <bool kMax>
void reduce_float_extremum(Device& device, const void* in, void* out, const SegmentKey& keys,
                           std::size_t n) {
  reduce_segments<false>(
      device, thrust::make_transform_iterator(static_cast<const double*>(in), ToSummary<kMax>()),
      sizeof(double), static_cast<double*>(out), keys, n, Summary{0.0, 0}, ComposeSummary<kMax>(),
      FinishSummary<kMax>());
}

// Runs scan or reduce `op` on element type `type` with the op's cvl_sem combiner; FLOAT MAX/MIN
// take the NaN-aware summaries.
template <bool kReduce>
void combine(Device& device, Op op, Type type, const void* in, void* out, const SegmentKey& keys,
             std::size_t n) {
  visit_combiner(op, type, [&]<Op, class Sem, Type kType>() {
    if constexpr (nan_resets_fold<Sem, host_t<kType>>) {
      constexpr bool kMax = std::is_same_v<Sem, cvl_sem::Max>;
      if constexpr (kReduce)
        reduce_float_extremum<kMax>(device, in, out, keys, n);
      else
        scan_float_extremum<kMax>(device, in, out, keys, n);
    } else if constexpr (kReduce) {
      reduce_typed<Sem, host_t<kType>>(device, in, out, keys, n);
    } else {
      scan_typed<Sem, host_t<kType>>(device, in, out, keys, n);
    }
  });
}

// Segment k's length for the offsets: 0 past a pending count or where negative (recorded).
struct OffsetLength {
  const std::int32_t* lengths;
  const std::int64_t* count;
  unsigned long long* negative;
  CVL_HD std::int64_t operator()(std::size_t k) const {
    if (count && k >= static_cast<std::size_t>(*count)) return 0;
    const std::int32_t length = lengths[k];
    if (length >= 0) return length;
    if (negative) record_fault(negative, k);
    return 0;
  }
};

}  // namespace

void scan(Device& device, Op op, Type type, const void* in, void* out, const SegmentKey& keys,
          std::size_t n) {
  combine<false>(device, op, type, in, out, keys, n);
}

void reduce(Device& device, Op op, Type type, const void* in, void* out, const SegmentKey& keys,
            std::size_t n) {
  combine<true>(device, op, type, in, out, keys, n);
}

void offsets_from_lengths(Device& device, const std::int32_t* lengths, Extent segments,
                          std::int64_t* offsets, std::int64_t* total,
                          unsigned long long* negative) {
  device.fill_bytes(offsets, 0, sizeof(std::int64_t));
  const std::size_t m = segments.bound;
  if (m > 0) {
    auto length = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0),
                                                  OffsetLength{lengths, segments.count, negative});
    // Each length read, each offset written.
    on_stream(device, m * (sizeof(std::int32_t) + sizeof(std::int64_t)),
              [=](auto policy) { thrust::inclusive_scan(policy, length, length + m, offsets + 1); });
  }
  if (total) device.copy_on_device(total, offsets + m, sizeof(std::int64_t));
}

void segment_index(Device& device, const std::int64_t* offsets, std::size_t segments,
                   std::size_t total, std::uint32_t* index) {
  if (total == 0) return;
  // The segment of j is the number of segment ends at or before j: each entry written, the offsets
  // searched (neighbouring elements walk the same ones).
  on_stream(device, total * sizeof(std::uint32_t) + (segments + 1) * sizeof(std::int64_t),
            [=](auto policy) {
    thrust::upper_bound(policy, offsets + 1, offsets + 1 + segments,
                        thrust::counting_iterator<std::int64_t>(0),
                        thrust::counting_iterator<std::int64_t>(static_cast<std::int64_t>(total)),
                        index);
  });
}

void sort_pairs(Device& device, std::uint64_t* keys, std::uint32_t* values, std::size_t n,
                int key_bits) {
  if (n <= 1) return;
  const std::uint64_t sort_bytes =
      traffic::radix_sort(n, sizeof(std::uint64_t), sizeof(std::uint32_t), key_bits);
#if CVL_USE_CUB
  // Radix passes over the bits that can differ only; CUB's radix sort is stable.
  auto owner = borrow(device);
  DeviceBuffer keys_out(owner, n * sizeof(std::uint64_t)),
      values_out(owner, n * sizeof(std::uint32_t));
  with_cub_temp(device, sort_bytes, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(
        temp, bytes, keys, keys_out.as<std::uint64_t>(), values, values_out.as<std::uint32_t>(),
        static_cast<std::int64_t>(n), 0, key_bits, device.stream());
  });
  device.copy_on_device(values, values_out.get(), n * sizeof(std::uint32_t));  // keys: not needed
#else
  on_stream(device, sort_bytes,
            [=](auto policy) { thrust::stable_sort_by_key(policy, keys, keys + n, values); });
#endif
}

void sort_pairs(Device& device, std::uint32_t* keys, std::uint32_t* values, std::size_t n) {
  if (n <= 1) return;
  // Thrust sorts primitive keys with CUB's radix sort, over all their bits.
  on_stream(device, traffic::radix_sort(n, sizeof(std::uint32_t), sizeof(std::uint32_t), 32),
            [=](auto policy) { thrust::stable_sort_by_key(policy, keys, keys + n, values); });
}

}  // namespace cvl::CVL_CUDA_NS::library
