//===- OneFlowMlirModule.cpp - The Python module over the driver ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// `oneflow_mlir._native`: the driver library (ofdriver/Compile.h,
// ofdriver/Run.h) with Python values in and out. The package
// (oneflow_mlir/__init__.py) gives it its Pythonic face: keyword options,
// numpy inputs as files, Plan and RunResult objects. Every failure is an
// absl::Status, raised as oneflow_mlir.Error with the tools' message.
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Compile.h"
#include "ofdriver/Interrupt.h"
#include "ofdriver/Nonfinite.h"
#include "ofdriver/Run.h"

#include "ofrt/KernelPlugin.h"
#include "ofrt/Plan.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;

namespace {

/// An absl::Status that is not OK, as a C++ exception pybind11 turns into
/// oneflow_mlir.Error.
struct StatusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename T> T valueOr(absl::StatusOr<T> value) {
  if (!value.ok())
    throw StatusError(std::string(value.status().message()));
  return std::move(*value);
}

void check(const absl::Status &status) {
  if (!status.ok())
    throw StatusError(std::string(status.message()));
}

/// A tensor as a numpy array (a copy); f16 and bf16 as float32.
py::array toNumpy(const ofrt::TensorData &tensor) {
  const ofrt::TensorDesc &desc = tensor.desc;
  std::vector<py::ssize_t> shape(desc.shape.begin(), desc.shape.end());
  const char *format = nullptr;
  switch (desc.dtype) {
  case ofrt::DType::F32: format = "float32"; break;
  case ofrt::DType::F64: format = "float64"; break;
  case ofrt::DType::I8: format = "int8"; break;
  case ofrt::DType::I16: format = "int16"; break;
  case ofrt::DType::I32: format = "int32"; break;
  case ofrt::DType::I64: format = "int64"; break;
  case ofrt::DType::U8: format = "uint8"; break;
  case ofrt::DType::U16: format = "uint16"; break;
  case ofrt::DType::U32: format = "uint32"; break;
  case ofrt::DType::U64: format = "uint64"; break;
  case ofrt::DType::Bool: format = "bool"; break;
  case ofrt::DType::F16:
  case ofrt::DType::BF16: {
    py::array_t<float> out(shape);
    float *data = out.mutable_data();
    for (int64_t i = 0; i < desc.numel(); ++i)
      data[i] = static_cast<float>(
          ofrt::loadElement(desc.dtype, tensor.bytes.data(), i));
    return out;
  }
  }
  py::array out(py::dtype(format), shape);
  if (tensor.bytes.size() == static_cast<size_t>(out.nbytes()))
    std::memcpy(out.mutable_data(), tensor.bytes.data(), tensor.bytes.size());
  return out;
}

/// The tensor type of a numpy dtype (kind and size), or an error naming
/// the input.
ofrt::DType dtypeOf(const py::dtype &dtype, const std::string &input) {
  char kind = dtype.kind();
  py::ssize_t size = dtype.itemsize();
  struct Entry {
    char kind;
    py::ssize_t size;
    ofrt::DType type;
  };
  static const Entry kTypes[] = {
      {'f', 2, ofrt::DType::F16}, {'f', 4, ofrt::DType::F32},
      {'f', 8, ofrt::DType::F64}, {'i', 1, ofrt::DType::I8},
      {'i', 2, ofrt::DType::I16}, {'i', 4, ofrt::DType::I32},
      {'i', 8, ofrt::DType::I64}, {'u', 1, ofrt::DType::U8},
      {'u', 2, ofrt::DType::U16}, {'u', 4, ofrt::DType::U32},
      {'u', 8, ofrt::DType::U64}, {'b', 1, ofrt::DType::Bool}};
  for (const Entry &entry : kTypes)
    if (entry.kind == kind && entry.size == size)
      return entry.type;
  throw StatusError("input '" + input + "': numpy dtype " +
                    py::str(static_cast<const py::handle &>(dtype)).cast<std::string>() +
                    " has no tensor type");
}

/// A C-contiguous numpy array as an input source that feeds its rows as
/// batches, from one copy shared by every rank.
ofrt::InputSource arraySource(const py::array &array, const std::string &input) {
  auto tensor = std::make_shared<ofrt::TensorData>();
  tensor->desc.dtype = dtypeOf(array.dtype(), input);
  tensor->desc.shape.assign(array.shape(), array.shape() + array.ndim());
  const auto *data = static_cast<const uint8_t *>(array.data());
  tensor->bytes.assign(data, data + array.nbytes());
  ofrt::InputSource source;
  source.kind = ofrt::InputSource::Kind::Array;
  source.array = std::move(tensor);
  source.path = "the numpy array";
  return source;
}

py::dict toDict(const std::map<std::string, ofrt::TensorData> &tensors) {
  py::dict out;
  for (const auto &[name, value] : tensors)
    if (name != ofdriver::kNonfiniteOutput) // The run's own check.
      out[py::str(name)] = toNumpy(value);
  return out;
}

py::tuple compile(py::bytes source, const std::string &kind,
                  const std::string &name, const std::string &devices,
                  std::optional<std::string> train, const std::string &labels,
                  const std::vector<std::string> &onnxDims,
                  const std::vector<std::string> &plugins) {
  ofdriver::Job job;
  check(ofdriver::parseDevices(devices, job));
  ofdriver::CompileOptions options;
  options.ranks = job.devices;
  options.device = job.device;
  options.onnxDims = onnxDims;
  options.plugins = plugins;
  options.diagnostics = ofdriver::Diagnostics::InStatus;
  if (train) {
    options.train = valueOr(ofdriver::parseTrainOptions(*train));
    options.train->labels = labels;
    options.train->devices = job.devices;
    options.train->device = job.device;
  }
  if (kind != "mlir" && kind != "onnx")
    throw StatusError("kind '" + kind + "' is not mlir or onnx");
  std::string text = source;
  ofdriver::Compiled compiled;
  {
    py::gil_scoped_release release;
    // strategy="auto" without a cluster file prices with this machine's
    // figures (measured once and cached), as of-run does.
    if (options.train)
      ofdriver::findClusterFigures(*options.train, job, /*library=*/"",
                                   /*threads=*/0, /*recalibrate=*/false);
    compiled = valueOr(ofdriver::compile(
        text,
        kind == "onnx" ? ofdriver::SourceKind::Onnx : ofdriver::SourceKind::Mlir,
        name, options));
  }
  return py::make_tuple(py::bytes(compiled.plan),
                        compiled.predictedStepSeconds);
}

/// Loads each kernel plugin among `paths` once.
void loadKernelPlugins(const std::vector<std::string> &paths) {
  static std::set<std::string> loaded;
  for (const std::string &path : paths) {
    if (!loaded.insert(path).second)
      continue;
    if (valueOr(ofrt::isKernelPlugin(path)))
      check(ofrt::loadKernelPlugin(path));
  }
}

py::dict runPlan(py::bytes planBytes, const std::string &name,
                 const ofdriver::JobOptions &jobOptions,
                 ofdriver::RunOptions options,
                 const std::map<std::string, py::object> &inputs,
                 const std::optional<std::string> &onNonfinite,
                 const std::vector<std::string> &plugins) {
  ofdriver::Job job = valueOr(ofdriver::makeJob(jobOptions));
  for (const auto &[input, value] : inputs) {
    if (py::isinstance<py::str>(value)) {
      options.inputs[input] =
          valueOr(ofdriver::parseInputSource(value.cast<std::string>()));
      continue;
    }
    py::array array = py::array::ensure(value, py::array::c_style);
    if (!array)
      throw StatusError("input '" + input + "' is not a numeric array");
    options.inputs[input] = arraySource(array, input);
  }
  if (onNonfinite)
    options.onNonfinite =
        valueOr(ofdriver::parseNonfiniteAction(*onNonfinite));
  check(ofdriver::checkRunOptions(options, ofdriver::ReportOptions()));
  loadKernelPlugins(plugins);
  ofrt::LoadedPlan plan =
      valueOr(ofrt::parsePlan(std::string(planBytes), /*text=*/false, name));
  check(ofdriver::checkPlanRanks(plan, job, name));
  if (options.onStep) {
    // Called from a stream thread: take the interpreter's lock.
    ofdriver::StepCallback call = std::move(options.onStep);
    options.onStep = [call](int64_t step,
                            const std::map<std::string, double> &values) {
      py::gil_scoped_acquire acquire;
      try {
        call(step, values);
      } catch (py::error_already_set &error) {
        error.discard_as_unraisable("oneflow_mlir progress callback");
      }
    };
  }
  absl::StatusOr<ofdriver::RunResult> result;
  {
    py::gil_scoped_release release;
    result = ofdriver::run(job, plan, options);
  }
  ofdriver::RunResult run = valueOr(std::move(result));
  py::dict out;
  out["outputs"] = toDict(run.run.outputs);
  out["variables"] = toDict(run.run.variables);
  out["scalars"] = run.scalars;
  out["exit_code"] = run.exitCode;
  out["rank"] = run.rank;
  out["stopped_after"] = run.stoppedAfter;
  out["summary"] = run.summary;
  const ofrt::RunResult &first = run.run.ranks.at(0);
  out["steps"] = first.steps;
  out["seconds"] = first.seconds;
  return out;
}

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "OneFlow-MLIR's driver library (use the oneflow_mlir package)";
  py::register_exception<StatusError>(m, "Error", PyExc_RuntimeError);
  ofdriver::setProgramName("oneflow_mlir");
  m.attr("INTERRUPTED_EXIT") = ofdriver::kInterruptedExit;

  py::class_<ofdriver::JobOptions>(m, "JobOptions")
      .def(py::init<>())
      .def_readwrite("devices", &ofdriver::JobOptions::devices)
      .def_readwrite("store_dir", &ofdriver::JobOptions::storeDir)
      .def_readwrite("redis", &ofdriver::JobOptions::redis)
      .def_readwrite("job_id", &ofdriver::JobOptions::jobId)
      .def_readwrite("hostname", &ofdriver::JobOptions::hostname);

  using ofdriver::RunOptions;
  py::class_<RunOptions>(m, "RunOptions")
      .def(py::init<>())
      .def_readwrite("steps", &RunOptions::steps)
      .def_readwrite("threads", &RunOptions::threads)
      .def_readwrite("allow_tf32", &RunOptions::allowTf32)
      .def_readwrite("stream_threads", &RunOptions::streamThreads)
      .def_readwrite("collectives", &RunOptions::collectives)
      .def_readwrite("timeout_ms", &RunOptions::timeoutMs)
      .def_readwrite("seed", &RunOptions::seed)
      .def_property(
          "save", [](const RunOptions &o) { return o.checkpoint.save; },
          [](RunOptions &o, std::string v) { o.checkpoint.save = v; })
      .def_property(
          "save_every",
          [](const RunOptions &o) { return o.checkpoint.saveEvery; },
          [](RunOptions &o, int64_t v) { o.checkpoint.saveEvery = v; })
      .def_property(
          "keep", [](const RunOptions &o) { return o.checkpoint.keep; },
          [](RunOptions &o, int64_t v) { o.checkpoint.keep = v; })
      .def_property(
          "resume", [](const RunOptions &o) { return o.checkpoint.resume; },
          [](RunOptions &o, std::string v) { o.checkpoint.resume = v; })
      .def_property(
          "resume_partial",
          [](const RunOptions &o) { return o.checkpoint.resumePartial; },
          [](RunOptions &o, bool v) { o.checkpoint.resumePartial = v; })
      .def_readwrite("metrics", &RunOptions::metrics)
      .def_readwrite("progress", &RunOptions::progress)
      .def_readwrite("log_every", &RunOptions::logEvery)
      .def_readwrite("collect_variables", &RunOptions::collectVariables)
      .def_readwrite("on_step", &RunOptions::onStep);

  m.def("compile", &compile, py::arg("source"), py::arg("kind"),
        py::arg("name"), py::arg("devices"), py::arg("train"),
        py::arg("labels"), py::arg("onnx_dims"), py::arg("plugins"),
        "Compiles .mlir text or ONNX bytes; returns (plan bytes, predicted "
        "seconds per step or 0)");
  m.def("run", &runPlan, py::arg("plan"), py::arg("name"), py::arg("job"),
        py::arg("options"), py::arg("inputs"), py::arg("on_nonfinite"),
        py::arg("plugins"), "Runs a binary plan; returns a dict");
  m.def(
      "passes",
      [](const std::string &text, const std::string &pipeline) {
        return valueOr(ofdriver::runPasses(text, pipeline));
      },
      py::arg("text"), py::arg("pipeline"),
      "Runs a textual pass pipeline on a module; returns its text");
  m.def(
      "launched_world",
      [] {
        std::optional<ofdriver::ProcessRank> rank =
            valueOr(ofdriver::rankFromEnvironment());
        return rank ? rank->world : 0;
      },
      "The job's process count when a launcher (torchrun, mpirun, srun, "
      "of-run) started this process as one of its ranks; else 0");
  m.def(
      "check_plan",
      [](py::bytes plan, const std::string &name) {
        ofrt::LoadedPlan loaded =
            valueOr(ofrt::parsePlan(std::string(plan), false, name));
        return loaded.worldSize;
      },
      py::arg("plan"), py::arg("name"),
      "Loads a binary plan and returns its rank count");
  m.def(
      "plan_text",
      [](py::bytes plan, const std::string &name) {
        return valueOr(ofrt::planToText(std::string(plan), name));
      },
      py::arg("plan"), py::arg("name"),
      "A binary plan in protobuf text format (.plantxt)");
  m.def(
      "plan_from_text",
      [](const std::string &text, const std::string &name) {
        return py::bytes(valueOr(ofrt::planFromText(text, name)));
      },
      py::arg("text"), py::arg("name"),
      "A plan in protobuf text format as a binary plan");
  m.def(
      "plan_dot",
      [](py::bytes plan, const std::string &name) {
        ofrt::LoadedPlan loaded =
            valueOr(ofrt::parsePlan(std::string(plan), false, name));
        return ofrt::planToDot(loaded);
      },
      py::arg("plan"), py::arg("name"),
      "A binary plan as a Graphviz graph (DOT)");
}
