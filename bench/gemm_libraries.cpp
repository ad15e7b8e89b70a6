//===- gemm_libraries.cpp - oneDNN's f32 GEMM against OpenBLAS's ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The f32 matrix products of a GPT's training step (width 256, 1024 tokens:
// the forward products, the input gradients with b transposed and the
// weight gradients with a transposed), some of the example GPT's (width 64,
// 128 tokens) and some between the two, on oneDNN's matmul (transposes as
// strided descriptors, as the runtime's kernel builds them) and on
// OpenBLAS's cblas_sgemm (its OpenMP build, as the runtime links it), in
// one process on the same OpenMP threads (OMP_NUM_THREADS). Prints each
// library's median milliseconds and GFLOP/s per shape and the ratio
// oneDNN time / OpenBLAS time (above 1: OpenBLAS is faster), then which
// library the runtime picks on this machine (Kernels/Cpu/Gemm.h).
//
//   OMP_NUM_THREADS=1 build/bench/bench-gemm-libraries [--repeats N]
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/DnnlUtils.h"
#include "Kernels/Cpu/Gemm.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Shape {
  int64_t m, k, n;
  bool transposeA, transposeB;
  const char *what;
};

const Shape kShapes[] = {
    {1024, 256, 768, false, false, "qkv forward"},
    {1024, 256, 1024, false, false, "mlp up forward"},
    {1024, 1024, 256, false, false, "mlp down forward"},
    {1024, 768, 256, false, true, "qkv input grad"},
    {1024, 1024, 256, false, true, "mlp up input grad"},
    {1024, 256, 1024, false, true, "mlp down input grad"},
    {256, 1024, 768, true, false, "qkv weight grad"},
    {1024, 1024, 256, true, false, "mlp down weight grad"},
    {256, 1024, 1024, true, false, "mlp up weight grad"},
    {1024, 256, 96, false, false, "lm head forward"},
    {256, 1024, 96, true, false, "lm head weight grad"},
    // The example GPT's (width 64, 128 tokens): where the libraries'
    // fixed costs weigh.
    {128, 64, 192, false, false, "small qkv forward"},
    {128, 64, 256, false, false, "small mlp up forward"},
    {128, 256, 64, false, true, "small mlp up input grad"},
    {64, 128, 256, true, false, "small mlp up weight grad"},
    // Between the two.
    {512, 128, 512, false, false, "mid forward"},
    {512, 512, 128, false, true, "mid input grad"},
    {128, 512, 512, true, false, "mid weight grad"},
};

template <typename F> double medianMs(int repeats, F f) {
  f(); // warm-up: JIT, packing buffers, thread start.
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int repeats = 9;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc &&
        std::atoi(argv[i + 1]) > 0) {
      repeats = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "bench-gemm-libraries: bad flag '%s' (--repeats N > 0)\n",
                   argv[i]);
      return 2;
    }
  }
  using namespace dnnl;
  using dims = memory::dims;
  const engine &eng = ofrt::cpu::cpuEngine();
  stream st(eng);
  std::printf("threads: %d, oneDNN with %s\n", omp_get_max_threads(),
              ofrt::cpu::dnnlIsaName());
  std::printf("%-22s %5s %5s %5s %2s %2s %10s %7s %10s %7s %7s\n", "product",
              "m", "k", "n", "ta", "tb", "oneDNN ms", "GF/s", "OpenBLAS",
              "GF/s", "ratio");
  for (const Shape &s : kShapes) {
    std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i % 17) / 17 - 0.5f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = float(i % 13) / 13 - 0.5f;
    auto desc = [](int64_t rows, int64_t cols, bool transposed) {
      return transposed
                 ? memory::desc({rows, cols}, memory::data_type::f32,
                                dims{1, rows})
                 : memory::desc({rows, cols}, memory::data_type::f32,
                                dims{cols, 1});
    };
    memory::desc ad = desc(s.m, s.k, s.transposeA),
                 bd = desc(s.k, s.n, s.transposeB), cd = desc(s.m, s.n, false);
    matmul product(matmul::primitive_desc(matmul::desc(ad, bd, cd), eng));
    memory am(ad, eng, a.data()), bm(bd, eng, b.data()), cm(cd, eng, c.data());
    double dnnlMs = medianMs(repeats, [&] {
      product.execute(st, {{DNNL_ARG_SRC, am},
                           {DNNL_ARG_WEIGHTS, bm},
                           {DNNL_ARG_DST, cm}});
      st.wait();
    });
    double blasMs = medianMs(repeats, [&] {
      ofrt::cpu::openBlasSgemm(s.transposeA, s.transposeB, s.m, s.n, s.k,
                               a.data(), s.transposeA ? s.m : s.k, b.data(),
                               s.transposeB ? s.k : s.n, c.data());
    });
    double gflop = 2.0 * s.m * s.k * s.n / 1e6;
    std::printf("%-22s %5ld %5ld %5ld %2d %2d %10.3f %7.1f %10.3f %7.1f "
                "%6.2fx\n",
                s.what, long(s.m), long(s.k), long(s.n), int(s.transposeA),
                int(s.transposeB), dnnlMs, gflop / dnnlMs, blasMs,
                gflop / blasMs, dnnlMs / blasMs);
  }
  auto library = ofrt::cpu::f32GemmLibrary();
  std::printf("ratio = oneDNN time / OpenBLAS time; the runtime uses %s here\n",
              library.ok() ? ofrt::cpu::gemmLibraryName(*library).c_str()
                           : std::string(library.status().message()).c_str());
  return 0;
}
