//===- DnnlUtils.cpp - oneDNN engine, stream and descriptors --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "DnnlUtils.h"
#include "CpuKernels.h"

#include <vector>

using namespace ofrt;
using namespace ofrt::cpu;

const dnnl::engine &cpu::cpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream &cpu::cpuStream() {
  thread_local dnnl::stream stream(cpuEngine());
  return stream;
}

std::optional<dt> cpu::dnnlType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return dt::f32;
  case DType::BF16:
    return dt::bf16;
  case DType::F16:
    return dt::f16;
  case DType::I8:
    return dt::s8;
  case DType::I32:
    return dt::s32;
  case DType::Bool:
  case DType::U8:
    return dt::u8;
  default:
    return std::nullopt;
  }
}

Dims cpu::dnnlDims(const Shape &shape) {
  if (shape.empty())
    return {1};
  return Dims(shape.begin(), shape.end());
}

MemDesc cpu::plainDesc(const Shape &shape, dt type) {
  Dims dims = dnnlDims(shape);
  return MemDesc(dims, type, rowMajorStrides(dims));
}

MemDesc cpu::stridedDesc(const Shape &dims, const Shape &strides, dt type) {
  if (dims.empty())
    return MemDesc({1}, type, Dims{1});
  return MemDesc(dims, type, strides);
}

CopyType cpu::copyType(DType dtype) {
  size_t size = dtypeSize(dtype);
  if (size % 4 == 0)
    return {dt::s32, static_cast<int64_t>(size / 4)};
  return {dt::u8, static_cast<int64_t>(size)};
}

absl::Status cpu::checkDnnlRank(const OpDesc &op, int64_t rank, int64_t extra) {
  if (rank + extra > DNNL_MAX_NDIMS)
    return opError(op, "rank " + std::to_string(rank) +
                           " is above what oneDNN supports (" +
                           std::to_string(DNNL_MAX_NDIMS - extra) + ")");
  return absl::OkStatus();
}

dnnl::primitive_attr cpu::scratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

namespace {
/// The scratchpad a primitive made with scratchpadAttr() states: its bytes
/// (zero for other primitives) and, when there is one, its description.
int64_t scratchpadOf(const dnnl::primitive &prim, MemDesc &desc) {
  const_dnnl_primitive_desc_t pd = prim.get_primitive_desc();
  const dnnl_memory_desc_t *md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  int64_t bytes = md ? dnnl_memory_desc_get_size(md) : 0;
  if (bytes > 0)
    desc = MemDesc(*md);
  return bytes;
}

/// This thread's scratchpad, grown to at least `bytes`. Execution waits, so
/// one buffer a thread serves every primitive.
void *threadScratchpad(int64_t bytes) {
  thread_local std::vector<uint8_t> scratchpad;
  if (scratchpad.size() < static_cast<size_t>(bytes))
    scratchpad.resize(bytes);
  return scratchpad.data();
}
} // namespace

absl::Status cpu::execute(const std::string &where, const dnnl::primitive &prim,
                          const std::unordered_map<int, dnnl::memory> &args) {
  try {
    MemDesc desc;
    int64_t bytes = scratchpadOf(prim, desc);
    if (bytes == 0) {
      prim.execute(cpuStream(), args);
    } else {
      std::unordered_map<int, dnnl::memory> withScratchpad = args;
      withScratchpad[DNNL_ARG_SCRATCHPAD] =
          dnnl::memory(desc, cpuEngine(), threadScratchpad(bytes));
      prim.execute(cpuStream(), withScratchpad);
    }
    cpuStream().wait();
  } catch (const dnnl::error &e) {
    return absl::InternalError(where + ": oneDNN failed: " + e.what());
  }
  return absl::OkStatus();
}

DnnlArgs &DnnlArgs::operator()(int arg, const MemDesc &desc,
                               const void *data) {
  for (Bound &b : bound)
    if (b.arg == arg) {
      if (b.data != data) {
        b.memory.set_data_handle(const_cast<void *>(data));
        b.data = data;
      }
      return *this;
    }
  dnnl::memory memory = wrap(desc, data);
  args.emplace(arg, memory);
  bound.push_back({arg, memory, data});
  return *this;
}

absl::Status cpu::execute(const std::string &where,
                          const dnnl::primitive &prim, DnnlArgs &args) {
  try {
    if (args.scratchpadBytes < 0)
      args.scratchpadBytes = scratchpadOf(prim, args.scratchpadDesc);
    if (args.scratchpadBytes > 0)
      args(DNNL_ARG_SCRATCHPAD, args.scratchpadDesc,
           threadScratchpad(args.scratchpadBytes));
    prim.execute(cpuStream(), args.map());
    cpuStream().wait();
  } catch (const dnnl::error &e) {
    return absl::InternalError(where + ": oneDNN failed: " + e.what());
  }
  return absl::OkStatus();
}

bool cpu::anyEmpty(std::initializer_list<const Shape *> shapes) {
  for (const Shape *shape : shapes)
    for (int64_t d : *shape)
      if (d == 0)
        return true;
  return false;
}

bool cpu::dnnlHasAvx512() {
  static const bool has = [] {
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    return (isa & avx512) == avx512;
  }();
  return has;
}

static const char *isaName(dnnl::cpu_isa isa) {
  using isa_t = dnnl::cpu_isa;
  switch (isa) {
  case isa_t::sse41:
    return "SSE4.1";
  case isa_t::avx:
    return "AVX";
  case isa_t::avx2:
    return "AVX2";
  case isa_t::avx512_core:
    return "AVX-512";
  case isa_t::avx512_core_vnni:
    return "AVX-512 VNNI";
  case isa_t::avx512_core_bf16:
    return "AVX-512 BF16";
  case isa_t::avx512_core_amx:
    return "AMX";
  default:
    return "another";
  }
}

const char *cpu::dnnlIsaName() { return isaName(dnnl::get_effective_cpu_isa()); }

absl::Status ofrt::checkCpuPrecision(DType dtype) {
  std::optional<dt> type = dnnlType(dtype);
  if (dtype != DType::BF16 && dtype != DType::F16)
    return absl::InvalidArgumentError(std::string(dtypeName(dtype)) +
                                      " is not a mixed precision (bf16, f16)");
  // A small matmul in the type with f32 accumulation, as the kernels run it:
  // oneDNN refuses the descriptor where the processor lacks the type.
  try {
    MemDesc a = plainDesc({2, 2}, *type);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, a, a), cpuEngine());
    (void)pd;
    return absl::OkStatus();
  } catch (const dnnl::error &) {
    return absl::UnimplementedError(
        std::string("oneDNN has no ") + dtypeName(dtype) +
        " kernels on this processor (it uses its " +
        dnnlIsaName() + " instructions; " +
        (dtype == DType::BF16 ? "bf16 needs AVX-512"
                              : "f16 needs AVX-512 FP16") +
        "); train in f32 or on a GPU");
  }
}

cpu::DnnlBackwardKernel::DnnlBackwardKernel(const OpDesc &op,
                                            const Shape &shape, dt type,
                                            int first, const Make &make)
    : CpuKernel(op), first(first), narrow(plainDesc(shape, type)),
      desc(narrow) {
  try {
    prim = make(desc);
  } catch (const dnnl::error &) {
    if (type == dt::f32)
      throw;
    desc = plainDesc(shape, dt::f32);
    prim = make(desc);
    toWide = dnnl::reorder(
        dnnl::reorder::primitive_desc(cpuEngine(), narrow, cpuEngine(), desc));
    toNarrow = dnnl::reorder(
        dnnl::reorder::primitive_desc(cpuEngine(), desc, cpuEngine(), narrow));
    wide.resize(3 * numel(shape));
  }
}

absl::Status cpu::DnnlBackwardKernel::compute(
    const KernelContext &, const std::vector<TensorView> &in,
    const std::vector<TensorView> &out) {
  const void *a = in[0].data, *dy = in[1].data;
  void *dx = out[0].data;
  size_t n = wide.size() / 3;
  if (!wide.empty()) {
    float *wa = wide.data(), *wdy = wa + n;
    OFRT_RETURN_IF_ERROR(
        execute(where, toWide,
                firstArgs(DNNL_ARG_FROM, narrow, a)(DNNL_ARG_TO, desc, wa)));
    OFRT_RETURN_IF_ERROR(
        execute(where, toWide,
                dyArgs(DNNL_ARG_FROM, narrow, dy)(DNNL_ARG_TO, desc, wdy)));
    a = wa;
    dy = wdy;
    dx = wdy + n;
  }
  OFRT_RETURN_IF_ERROR(execute(
      where, prim,
      args(first, desc, a)(DNNL_ARG_DIFF_DST, desc, dy)(DNNL_ARG_DIFF_SRC,
                                                         desc, dx)));
  if (wide.empty())
    return absl::OkStatus();
  return execute(where, toNarrow,
                 dxArgs(DNNL_ARG_FROM, desc, dx)(DNNL_ARG_TO, narrow,
                                                 out[0].data));
}
