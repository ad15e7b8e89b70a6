"""OneFlow-MLIR from Python: compile a model for N devices, train it, read
the results as numpy arrays.

    import oneflow_mlir as of
    plan = of.compile("examples/gpt/gpt.mlir", devices="cpu:4",
                      train=of.Train(optimizer="adamw", lr=3e-3,
                                     strategy="auto"))
    result = plan.run(inputs={"tokens": tokens, "targets": targets},
                      steps=20)
    print(result.losses, result.ms_per_step)

Everything goes through the same driver library as the tools (of-run's
compile and run), so a plan, a loss and an error message are the ones
of-run gives. Errors are `oneflow_mlir.Error` (a RuntimeError) with the
tools' messages; Ctrl-C during a run stops every rank after the same step
and raises KeyboardInterrupt.
"""

import copy
import io
import os

# The native module first: its BLAS (OpenBLAS built with OpenMP, as of-run
# links it) is then the one numpy's BLAS symbols resolve to as well. A
# process that imported numpy before gets numpy's OpenBLAS (pthreads) for
# both: correct, but kernel threads are then OpenBLAS's own (docs/python.md).
from . import _native
from . import _processes
from ._native import Error

import numpy as np

__all__ = ["Error", "Train", "Plan", "RunResult", "compile", "load_plan",
           "from_torch", "passes"]


class Train:
    """Training options: oneflow-training-pipeline's options, spelled as
    keywords (`clip_norm=1.0` is `clip-norm=1.0`), with its defaults.

    loss, optimizer (sgd, adam, adamw), lr, momentum, nesterov,
    weight_decay, beta1, beta2, epsilon, clip_norm, warmup_steps,
    total_steps, min_lr, nonfinite, strategy (dp, tp, hybrid, zero, auto or
    a strategy file), search, mesh (a list), memory_limit, cluster,
    explain, micro_batches, stages, pipeline_schedule, recompute,
    precision, batch_norm_statistics, batch_norm_groups; and `labels`, the
    labels input an ONNX model gets with loss="cross_entropy".
    """

    def __init__(self, labels="labels", **options):
        self.labels = labels
        self.options = dict(options)
        for reserved in ("devices", "device"):
            if reserved in self.options:
                raise Error(f"Train({reserved}=...): the devices are "
                            "compile()'s devices argument")

    def text(self):
        """The options as oneflow-training-pipeline's text."""
        parts = []
        for key, value in self.options.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, (list, tuple)):
                value = ",".join(str(v) for v in value)
            text = str(value)
            if any(c.isspace() for c in text) or "=" in text:
                raise Error(f"Train({key}={value!r}): the value may not "
                            "hold spaces or '='")
            parts.append(f"{key.replace('_', '-')}={text}")
        return " ".join(parts)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"Train({args})"


class RunResult:
    """What a run gives back.

    outputs: each output's value at the last step (numpy, by name).
    losses: the loss at every step (the scalar output named "loss", else
        the only scalar output; [] when there is none).
    scalars: every scalar output a rank holds whole, at every step.
    variables: every variable's value after the run, when asked for.
    ms_per_step: rank 0's time per step, the first step included.
    """

    def __init__(self, raw):
        self.outputs = raw["outputs"]
        self.variables = raw["variables"]
        self.scalars = {k: list(v) for k, v in raw["scalars"].items()}
        if "loss" in self.scalars:
            self.losses = self.scalars["loss"]
        elif len(self.scalars) == 1:
            self.losses = next(iter(self.scalars.values()))
        else:
            self.losses = []
        self.steps = raw["steps"]
        self.seconds = raw["seconds"]
        self.ms_per_step = 1e3 * self.seconds / max(self.steps, 1)
        self.summary = raw["summary"]
        self.stopped_nonfinite = raw["exit_code"] == 1

    def __repr__(self):
        return f"RunResult({self.summary!r})"


def _job(devices, store_dir, redis, job_id, hostname):
    job = _native.JobOptions()
    job.devices = devices
    job.store_dir = store_dir or ""
    job.redis = redis or ""
    if job_id is not None:
        job.job_id = job_id
    job.hostname = hostname or ""
    return job


class Plan:
    """A compiled plan (the bytes of-run --emit-plan writes) and the
    devices it was compiled for."""

    def __init__(self, data, devices="cpu:1", name="<plan>",
                 predicted_step_seconds=0.0, plugins=()):
        self.data = bytes(data)
        self.devices = devices
        self.name = name
        self.predicted_step_seconds = predicted_step_seconds
        self.plugins = list(plugins)
        self.ranks = _native.check_plan(self.data, name)

    def save(self, path):
        """Writes the plan (of-run-plan and of-run run it): in protobuf text
        format when `path` ends in .plantxt, .pbtxt or .txtpb, as the
        runtime reads such files; binary otherwise."""
        text = str(path).endswith((".plantxt", ".pbtxt", ".txtpb"))
        with open(path, "w" if text else "wb") as f:
            f.write(self.text() if text else self.data)

    def text(self):
        """The plan in protobuf text format: every rank's actors, regsts,
        streams and collectives, as a .plantxt file holds them."""
        return _native.plan_text(self.data, self.name)

    def to_dot(self):
        """The plan as a Graphviz graph (DOT): a cluster per rank and per
        stream, regsts as edges with their buffer counts; `dot -Tsvg`
        draws it."""
        return _native.plan_dot(self.data, self.name)

    def run(self, inputs=None, steps=1, threads=None, seed=None,
            on_nonfinite=None, collectives=None, stream_threads=None,
            timeout_ms=None, save=None, save_every=None, keep=None,
            resume=None, resume_partial=None, metrics=None, progress="off",
            log_every=None, variables=False, on_step=None, store_dir=None,
            redis=None, job_id=None, hostname=None, processes=0):
        """Runs `steps` steps on this process's ranks, or with
        `processes=N` as N processes of of-run-plan on this machine.

        inputs: by input name, a numpy array (consecutive batches along its
            first axis, as a .npy file for --input gives them) or a source
            string of --input ("random:0:10", "fill:1", "@data.npy:loop").
            Inputs not given get random data.
        on_step: called as on_step(step, {name: value}) with each step's
            scalar outputs (the loss).
        variables: also return every variable's value after the run.
        processes: run the plan's N ranks as N processes (of-run-plan
            --nproc-per-node N; Gloo between them) instead of threads of
            this one; without `variables` and `on_step`, which need the
            ranks here.
        The other keywords are of-run's flags of the same names; left out
        (None), they have the flags' defaults (the driver's RunOptions).
        """
        given = {name: value for name, value in (
            ("steps", steps), ("threads", threads), ("seed", seed),
            ("collectives", collectives), ("stream_threads", stream_threads),
            ("timeout_ms", timeout_ms), ("save", save),
            ("save_every", save_every), ("keep", keep), ("resume", resume),
            ("resume_partial", resume_partial), ("progress", progress),
            ("log_every", log_every)) if value is not None}
        if processes and processes > 1:
            if variables or on_step is not None:
                raise Error("processes=N runs the ranks elsewhere: "
                            "variables=True and on_step need them in this "
                            "process (save=DIR writes the variables)")
            if store_dir or redis or job_id or hostname:
                raise Error("processes=N meets its ranks through a fresh "
                            "store; store_dir, redis, job_id and hostname "
                            "are for a script under torchrun, mpirun or "
                            "srun")
            if on_nonfinite is not None:
                given["on_nonfinite"] = on_nonfinite
            flags = []
            for name, value in given.items():
                flag = "--" + name.replace("_", "-")
                if isinstance(value, bool):
                    flags += [flag] if value else []
                else:
                    flags.append(f"{flag}={value}")
            return RunResult(_processes.run(self, processes, inputs, flags,
                                            metrics))
        options = _native.RunOptions()
        for name, value in given.items():
            setattr(options, name, value)
        options.metrics = metrics or ""
        options.collect_variables = variables
        if on_step is not None:
            options.on_step = on_step
        # Under torchrun, mpirun or srun this process is one of the plan's
        # ranks, on a device of the kind the plan was compiled for.
        devices = self.devices
        if _native.launched_world():
            devices = devices.split(":")[0] + ":1"
        job = _job(devices, store_dir, redis, job_id, hostname)
        # Arrays go to the runtime in memory (one copy, shared by the ranks).
        sources = {}
        for name, value in (inputs or {}).items():
            if isinstance(value, str):
                sources[name] = value
                continue
            array = np.ascontiguousarray(value)
            if array.dtype == object:
                raise Error(f"input '{name}': {type(value).__name__} "
                            "is not a numeric array")
            sources[name] = array
        raw = _native.run(self.data, self.name, job, options, sources,
                          on_nonfinite, self.plugins)
        if raw["exit_code"] == _native.INTERRUPTED_EXIT:
            raise KeyboardInterrupt(
                f"stopped after step {raw['stopped_after']}")
        return RunResult(raw)

    def __repr__(self):
        return (f"Plan({self.name!r}, devices={self.devices!r}, "
                f"{len(self.data)} bytes)")


def compile(model, devices="cpu:1", train=None, onnx_dims=None,
            plugins=(), name=None):
    """Compiles a model for `devices` ("cpu:N" or "cuda:1").

    model: a path (.mlir or .onnx), .mlir text, or ONNX bytes.
    train: a Train (a training step: autodiff, optimizer, strategy);
        None runs the program as it is (an ONNX model data parallel).
    onnx_dims: sizes of an ONNX model's symbolic dimensions, {"N": 64}.
    """
    if isinstance(model, (bytes, bytearray)):
        source, kind = bytes(model), "onnx"
        name = name or "<onnx>"
    elif isinstance(model, (str, os.PathLike)) and os.path.isfile(model):
        path = os.fspath(model)
        with open(path, "rb") as f:
            source = f.read()
        kind = "onnx" if path.endswith(".onnx") else "mlir"
        name = name or path
    elif isinstance(model, (str, os.PathLike)) and \
            os.fspath(model).endswith((".mlir", ".onnx")):
        raise Error(f"cannot open model file '{os.fspath(model)}': no such "
                    "file")
    elif isinstance(model, str) and ("module" in model or "func" in model):
        source, kind = model.encode(), "mlir"
        name = name or "<mlir>"
    else:
        raise Error(f"compile: {model!r} is neither a file, .mlir text nor "
                    "ONNX bytes")
    if train is not None and not isinstance(train, Train):
        raise Error("compile: train must be oneflow_mlir.Train(...)")
    dims = [f"{k}={v}" for k, v in (onnx_dims or {}).items()]
    plan, predicted = _native.compile(
        source, kind, name, devices,
        train.text() if train is not None else None,
        train.labels if train is not None else "labels", dims,
        list(plugins))
    return Plan(plan, devices, name, predicted, plugins)


def load_plan(path, devices="cpu:1"):
    """A plan file for `devices`: binary (.plan, as of-run --emit-plan
    writes), or protobuf text format for names ending in .plantxt, .pbtxt
    or .txtpb (as Plan.save and of-translate --export-plan-text write)."""
    name = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    if name.endswith((".plantxt", ".pbtxt", ".txtpb")):
        text = data.decode("utf-8", errors="replace")
        data = _native.plan_from_text(text, name)
    return Plan(data, devices, name)


def from_torch(module, example_inputs, devices="cpu:1", train=None,
               input_names=None, output_names=None, opset=17, **kwargs):
    """Exports a torch.nn.Module through torch.onnx (in memory) and
    compiles it: a PyTorch user never writes a file."""
    import torch

    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    buffer = io.BytesIO()
    names = input_names or [f"input{i}" for i in range(len(example_inputs))]
    # For training, the module as it trains (dropout, batch statistics;
    # eval mode would take fast paths that hide parameters), traced on a
    # copy so that the caller's module (its batch-norm statistics) stays
    # as it was.
    mode = torch.onnx.TrainingMode
    original, module = module, copy.deepcopy(module)
    module.train(train is not None)
    torch.onnx.export(module, example_inputs, buffer, input_names=names,
                      output_names=output_names, opset_version=opset,
                      training=mode.TRAINING if train is not None
                      else mode.EVAL,
                      do_constant_folding=False)
    data = buffer.getvalue()
    if train is not None:
        # The trace ran the copy, moving its batch-norm statistics: the
        # model starts from the caller's values.
        import onnx
        from onnx import numpy_helper

        state = {k: v.detach().cpu().numpy()
                 for k, v in original.state_dict().items()}
        proto = onnx.load_from_string(data)
        for tensor in proto.graph.initializer:
            if tensor.name in state:
                tensor.CopyFrom(numpy_helper.from_array(state[tensor.name],
                                                        tensor.name))
        data = proto.SerializeToString()
    return compile(data, devices=devices, train=train,
                   name=f"<{type(module).__name__}>", **kwargs)


def passes(text, pipeline):
    """Runs a textual pass pipeline ("builtin.module(oneflow-...)") on a
    module's text and returns the result's text."""
    return _native.passes(text, pipeline)
