//===- MpiCollectives.cpp - Collectives through MPI ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Ranks started by mpirun use MPI's collectives: OpenMPI's shared memory
// inside a node and its network transports between nodes. The job's global
// ranks are MPI_COMM_WORLD's; a group is an MPI communicator made with
// MPI_Comm_create_group, which only the group's members call (so groups are
// joined in the global order CommunicatorPool.h describes, like any
// library's).
//
// MPI has no timeouts. Collectives are MPI's blocking calls (its tuned
// algorithms; the non-blocking ones are several times slower here), each
// under a watchdog: one that does not finish in time prints an error naming
// the rank and the collective and ends the job with MPI_Abort, since MPI
// cannot abandon a collective. Sends and receives are non-blocking and
// polled until their deadline, and a receive that times out is cancelled
// and returned as an error. A rank that exits ends the job: mpirun stops
// every other rank.
//
//===----------------------------------------------------------------------===//

#include "Collectives/CollectiveUtils.h"
#include "Collectives/Libraries.h"

#include "ofrt/Collectives.h"
#include "ofrt/Status.h"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

using namespace ofrt;
using namespace ofrt::collectives;
using Clock = std::chrono::steady_clock;

namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

/// MPI in this process: initialized on first use (threads may call it
/// concurrently) and finalized when the process exits.
class MpiProcess {
public:
  static absl::StatusOr<MpiProcess *> get() {
    static std::once_flag once;
    static MpiProcess process;
    static absl::Status status;
    std::call_once(once, [] { status = process.init(); });
    if (!status.ok())
      return status;
    return &process;
  }

  int rank = 0, size = 1;

private:
  absl::Status init() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = 0;
    if (!initialized) {
      int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE,
                                 &provided);
      if (code != MPI_SUCCESS)
        return absl::UnavailableError("MPI_Init_thread failed: " +
                                      mpiError(code));
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized)
          MPI_Finalize();
      });
    } else {
      MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_MULTIPLE)
      return absl::FailedPreconditionError(
          "this MPI does not support calls from several threads "
          "(MPI_THREAD_MULTIPLE)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return absl::OkStatus();
  }
};

/// MPI's operation for `op`.
MPI_Op mpiOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return MPI_MAX;
  case ReduceOp::Min:
    return MPI_MIN;
  case ReduceOp::Sum:
    break;
  }
  return MPI_SUM;
}

/// The MPI type of a reducible `dtype`.
MPI_Datatype reducibleType(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return MPI_DOUBLE;
  case DType::I32:
    return MPI_INT32_T;
  case DType::I64:
    return MPI_INT64_T;
  default:
    return MPI_FLOAT;
  }
}

/// An MPI type of `dtype`'s size, for data movement.
MPI_Datatype movingType(DType dtype) {
  switch (dtypeSize(dtype)) {
  case 1:
    return MPI_UINT8_T;
  case 2:
    return MPI_UINT16_T;
  case 4:
    return MPI_UINT32_T;
  default:
    return MPI_UINT64_T;
  }
}

/// Ends the job when a blocking MPI call outlives its deadline.
class Watchdog {
public:
  static Watchdog &instance() {
    static Watchdog *watchdog = new Watchdog(); // Lives until exit.
    return *watchdog;
  }

  /// A call being watched, for its lifetime.
  class Watch {
  public:
    Watch(std::string what, std::chrono::milliseconds timeout)
        : id(instance().add(std::move(what), timeout)) {}
    ~Watch() { instance().remove(id); }

  private:
    uint64_t id;
  };

private:
  Watchdog() : thread([this] { loop(); }) { thread.detach(); }

  uint64_t add(std::string what, std::chrono::milliseconds timeout) {
    std::lock_guard<std::mutex> lock(mutex);
    calls[++last] = {Clock::now() + timeout, std::move(what), timeout};
    return last;
  }
  void remove(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex);
    calls.erase(id);
  }
  void loop() {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::lock_guard<std::mutex> lock(mutex);
      for (const auto &[id, call] : calls)
        if (Clock::now() >= call.deadline) {
          std::fprintf(stderr,
                       "error: %s timed out after %lld ms waiting for its "
                       "peers; MPI cannot abandon a collective, so the job "
                       "ends\n",
                       call.what.c_str(),
                       static_cast<long long>(call.timeout.count()));
          std::fflush(stderr);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
  }

  struct Call {
    Clock::time_point deadline;
    std::string what;
    std::chrono::milliseconds timeout;
  };
  std::mutex mutex;
  std::map<uint64_t, Call> calls;
  uint64_t last = 0;
  std::thread thread;
};

class MpiCommunicator : public Communicator {
public:
  MpiCommunicator(MPI_Comm comm, std::chrono::milliseconds timeout)
      : comm(comm), timeoutMs(timeout) {
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &count);
    MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
    int *bound = nullptr, found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &bound, &found);
    tagBound = found && bound ? *bound : 32767;
  }
  ~MpiCommunicator() override {
    // A communicator with a call still pending (after a timeout) is left
    // alone: freeing it would wait for that call.
    if (!isBroken())
      MPI_Comm_free(&comm);
  }

  int rank() const override { return me; }
  int size() const override { return count; }
  std::chrono::milliseconds timeout() const override { return timeoutMs; }

protected:
  absl::Status doAllReduce(DType dtype, const void *input, void *output,
                           int64_t n, ReduceOp op) override {
    std::string what = describe("all_reduce", dtype, n);
    OFRT_RETURN_IF_ERROR(fits(what, {n}));
    return collective(what, [&] {
      return MPI_Allreduce(input == output ? MPI_IN_PLACE : input, output, n,
                           reducibleType(dtype), mpiOp(op), comm);
    });
  }

  absl::Status doReduceScatter(DType dtype, const void *input, void *output,
                               const std::vector<int64_t> &chunks,
                               ReduceOp op) override {
    std::string what = describe("reduce_scatter", dtype, chunks[me]);
    OFRT_RETURN_IF_ERROR(fits(what, chunks));
    std::vector<int> counts(chunks.begin(), chunks.end());
    return collective(what, [&] {
      return MPI_Reduce_scatter(input, output, counts.data(),
                                reducibleType(dtype), mpiOp(op), comm);
    });
  }

  absl::Status doAllGather(DType dtype, const void *input, void *output,
                           const std::vector<int64_t> &chunks) override {
    int64_t total = 0;
    for (int64_t chunk : chunks)
      total += chunk;
    std::string what = describe("all_gather", dtype, total);
    OFRT_RETURN_IF_ERROR(fits(what, {total}));
    std::vector<int> counts(chunks.begin(), chunks.end()), displs;
    for (int at = 0, q = 0; q < count; at += counts[q++])
      displs.push_back(at);
    MPI_Datatype type = movingType(dtype);
    return collective(what, [&] {
      return MPI_Allgatherv(input, counts[me], type, output, counts.data(),
                            displs.data(), type, comm);
    });
  }

  absl::Status doAllToAll(DType dtype, const void *input, void *output,
                          int64_t n) override {
    std::string what = describe("all_to_all", dtype, n);
    OFRT_RETURN_IF_ERROR(fits(what, {n}));
    MPI_Datatype type = movingType(dtype);
    int each = n / count;
    return collective(what, [&] {
      return MPI_Alltoall(input, each, type, output, each, type, comm);
    });
  }

  absl::Status doAllToAllV(DType dtype, const void *input,
                           const std::vector<int64_t> &sendCounts, void *output,
                           const std::vector<int64_t> &recvCounts) override {
    int64_t sent = 0, received = 0;
    for (int q = 0; q < count; ++q) {
      sent += sendCounts[q];
      received += recvCounts[q];
    }
    std::string what = describe("all_to_all_v", dtype, sent);
    OFRT_RETURN_IF_ERROR(fits(what, {sent, received}));
    std::vector<int> sends(sendCounts.begin(), sendCounts.end());
    std::vector<int> recvs(recvCounts.begin(), recvCounts.end());
    std::vector<int> sendDispls, recvDispls;
    for (int s = 0, r = 0, q = 0; q < count; s += sends[q], r += recvs[q++]) {
      sendDispls.push_back(s);
      recvDispls.push_back(r);
    }
    MPI_Datatype type = movingType(dtype);
    return collective(what, [&] {
      return MPI_Alltoallv(input, sends.data(), sendDispls.data(), type,
                           output, recvs.data(), recvDispls.data(), type, comm);
    });
  }

  absl::Status doBroadcast(DType dtype, void *data, int64_t n,
                           int root) override {
    std::string what = describe("broadcast", dtype, n) + " from rank " +
                       std::to_string(root);
    OFRT_RETURN_IF_ERROR(fits(what, {n}));
    return collective(what, [&] {
      return MPI_Bcast(data, n, movingType(dtype), root, comm);
    });
  }

  absl::Status doSend(DType dtype, const void *data, int64_t n, int peer,
                      uint32_t tag) override {
    std::string what = describe("send", dtype, n) + " to rank " +
                       std::to_string(peer) + " (tag " + std::to_string(tag) +
                       ")";
    OFRT_RETURN_IF_ERROR(fits(what, {n}));
    // A synchronous send: it completes once the recv has started, as
    // Communicator.h promises.
    return run(what, [&](MPI_Request *request) {
      return MPI_Issend(data, n, movingType(dtype), peer, mpiTag(tag), comm,
                        request);
    });
  }

  absl::Status doRecv(DType dtype, void *data, int64_t n, int peer,
                      uint32_t tag) override {
    std::string what = describe("recv", dtype, n) + " from rank " +
                       std::to_string(peer) + " (tag " + std::to_string(tag) +
                       ")";
    OFRT_RETURN_IF_ERROR(fits(what, {n}));
    return run(
        what,
        [&](MPI_Request *request) {
          return MPI_Irecv(data, n, movingType(dtype), peer, mpiTag(tag), comm,
                           request);
        },
        /*cancellable=*/true);
  }

private:
  /// MPI counts are ints.
  absl::Status fits(const std::string &what,
                    const std::vector<int64_t> &counts) const {
    for (int64_t n : counts)
      if (n > INT_MAX)
        return absl::UnimplementedError(who() + ": " + what +
                                        " has more elements than one MPI "
                                        "call takes (2^31 - 1)");
    return absl::OkStatus();
  }

  /// Tags above MPI's bound wrap; blocking sends and recvs between one pair
  /// of ranks never have two tags in flight.
  int mpiTag(uint32_t tag) const {
    return static_cast<int>(tag % (static_cast<uint64_t>(tagBound) + 1));
  }

  /// Runs a blocking collective under the watchdog.
  template <typename Call>
  absl::Status collective(const std::string &what, Call &&call) {
    int code;
    {
      Watchdog::Watch watch("global rank " + std::to_string(worldRank) +
                                ", " + who() + ": " + what,
                            timeoutMs);
      code = call();
    }
    if (code != MPI_SUCCESS)
      return absl::UnavailableError(who() + ": " + what +
                                    " failed: " + mpiError(code));
    return absl::OkStatus();
  }

  /// Starts a call and polls it until it finishes or the timeout passes; a
  /// `cancellable` call (a recv) is then cancelled, others stay pending.
  template <typename Start>
  absl::Status run(const std::string &what, Start &&start,
                   bool cancellable = false) {
    MPI_Request request = MPI_REQUEST_NULL;
    int code = start(&request);
    Clock::time_point deadline = Clock::now() + timeoutMs;
    for (int polls = 0; code == MPI_SUCCESS; ++polls) {
      int done = 0;
      code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS || done)
        break;
      if (Clock::now() >= deadline) {
        if (cancellable) {
          MPI_Cancel(&request);
          MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
        return absl::DeadlineExceededError(
            who() + ": " + what + " timed out after " +
            std::to_string(timeoutMs.count()) + " ms waiting for its peers");
      }
      // Spin briefly; then let ranks that share this core run.
      if (polls > 64)
        std::this_thread::yield();
    }
    if (code != MPI_SUCCESS)
      return absl::UnavailableError(who() + ": " + what +
                                    " failed: " + mpiError(code));
    return absl::OkStatus();
  }

  MPI_Comm comm;
  int me = 0, count = 1, tagBound = 32767, worldRank = 0;
  std::chrono::milliseconds timeoutMs;
};

/// Reports to rank 0 on a duplicate of MPI_COMM_WORLD: a size, then the
/// bytes, each under a tag of the topic.
class MpiControlChannel : public ControlChannel {
public:
  MpiControlChannel(MPI_Comm comm, std::chrono::milliseconds timeout)
      : comm(comm), timeout(timeout) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &world);
  }
  ~MpiControlChannel() override { MPI_Comm_free(&comm); }

  absl::Status send(const std::string &topic,
                    const std::string &report) override {
    int64_t bytes = report.size();
    std::string what = "rank " + std::to_string(rank) + ": sending the " +
                       topic + " report";
    OFRT_RETURN_IF_ERROR(finish(what, [&](MPI_Request *request) {
      return MPI_Issend(&bytes, 1, MPI_INT64_T, 0, tag(topic), comm, request);
    }));
    if (bytes > INT_MAX)
      return absl::UnimplementedError(what + ": more than 2 GiB");
    return finish(what, [&](MPI_Request *request) {
      return MPI_Issend(report.data(), bytes, MPI_BYTE, 0, tag(topic) + 1,
                        comm, request);
    });
  }

  absl::StatusOr<std::vector<std::string>>
  gather(const std::string &topic) override {
    std::vector<std::string> reports(world);
    for (int r = 1; r < world; ++r) {
      std::string what = "rank " + std::to_string(r) + " sent no " + topic +
                         " report";
      int64_t bytes = 0;
      OFRT_RETURN_IF_ERROR(finish(what, [&](MPI_Request *request) {
        return MPI_Irecv(&bytes, 1, MPI_INT64_T, r, tag(topic), comm, request);
      }));
      reports[r].resize(bytes);
      OFRT_RETURN_IF_ERROR(finish(what, [&](MPI_Request *request) {
        return MPI_Irecv(reports[r].data(), bytes, MPI_BYTE, r,
                         tag(topic) + 1, comm, request);
      }));
    }
    return reports;
  }

private:
  static int tag(const std::string &topic) {
    unsigned hash = 0;
    for (unsigned char c : topic)
      hash = hash * 31 + c;
    return 2 * static_cast<int>(hash % 16000);
  }

  template <typename Start>
  absl::Status finish(const std::string &what, Start &&start) {
    MPI_Request request = MPI_REQUEST_NULL;
    int code = start(&request);
    Clock::time_point deadline = Clock::now() + timeout;
    while (code == MPI_SUCCESS) {
      int done = 0;
      code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS || done)
        break;
      if (Clock::now() >= deadline)
        return absl::DeadlineExceededError(
            what + " within " + std::to_string(timeout.count()) + " ms");
      std::this_thread::yield();
    }
    if (code != MPI_SUCCESS)
      return absl::UnavailableError(what + ": " + mpiError(code));
    return absl::OkStatus();
  }

  MPI_Comm comm;
  int rank = 0, world = 1;
  std::chrono::milliseconds timeout;
};

class MpiCollectives : public Collectives {
public:
  MpiCollectives(const CollectivesOptions &options) : options(options) {}

  std::string name() const override { return "mpi"; }

  absl::StatusOr<std::unique_ptr<Communicator>>
  join(const std::vector<int64_t> &ranks, int position,
       const std::string &) override {
    std::string group;
    for (int64_t rank : ranks)
      group += (group.empty() ? "" : ", ") + std::to_string(rank);
    std::string who = "global rank " + std::to_string(options.rank) +
                      ": joining the group [" + group + "]";
    MPI_Group world, members;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> list(ranks.begin(), ranks.end());
    MPI_Group_incl(world, list.size(), list.data(), &members);
    // Groups are created one at a time in one global order, so one tag
    // serves them all.
    MPI_Comm comm = MPI_COMM_NULL;
    int code;
    {
      Watchdog::Watch watch(who, options.timeout);
      code = MPI_Comm_create_group(MPI_COMM_WORLD, members, 0x4f46, &comm);
    }
    MPI_Group_free(&members);
    MPI_Group_free(&world);
    if (code != MPI_SUCCESS)
      return absl::UnavailableError(who + " failed: " + mpiError(code));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::unique_ptr<Communicator>(
        new MpiCommunicator(comm, options.timeout));
  }

  absl::StatusOr<std::unique_ptr<ControlChannel>> controlChannel() override {
    MPI_Comm comm = MPI_COMM_NULL;
    int code = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (code != MPI_SUCCESS)
      return absl::UnavailableError("rank " + std::to_string(options.rank) +
                                    ": cannot open the MPI control channel: " +
                                    mpiError(code));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::unique_ptr<ControlChannel>(
        new MpiControlChannel(comm, options.timeout));
  }

private:
  CollectivesOptions options;
};

} // namespace

void ofrt::registerMpiCollectives(CollectivesRegistry &registry) {
  registry.add(
      "mpi", "MPI between the processes mpirun started (OpenMPI)",
      [](const CollectivesOptions &options)
          -> absl::StatusOr<std::unique_ptr<Collectives>> {
        absl::StatusOr<MpiProcess *> process = MpiProcess::get();
        if (!process.ok())
          return process.status();
        if ((*process)->size != options.worldSize ||
            (*process)->rank != options.rank)
          return absl::FailedPreconditionError(
              "rank " + std::to_string(options.rank) + " of " +
              std::to_string(options.worldSize) +
              " cannot use the mpi collectives: MPI sees rank " +
              std::to_string((*process)->rank) + " of " +
              std::to_string((*process)->size) +
              " (start every rank with mpirun, or use gloo)");
        return std::unique_ptr<Collectives>(new MpiCollectives(options));
      });
}
