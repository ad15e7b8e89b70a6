//===- Launch.cpp - Ranks of a multi-process of-run job -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Launch.h"
#include "ofdriver/Interrupt.h"
#include "ofdriver/Options.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

using namespace ofdriver;

namespace {

/// The integer in environment variable `name`, nullopt if unset.
absl::StatusOr<std::optional<int>> intFromEnv(const char *name) {
  const char *text = std::getenv(name);
  if (!text)
    return std::nullopt;
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < 0 || value > 1 << 20)
    return absl::InvalidArgumentError(std::string("environment variable ") +
                                      name + "='" + text +
                                      "' is not a rank or a size");
  return static_cast<int>(value);
}

} // namespace

absl::StatusOr<std::optional<ProcessRank>> ofdriver::rankFromEnvironment() {
  struct Source {
    const char *rank, *world, *launcher;
  };
  const Source sources[] = {{"OF_RANK", "OF_WORLD_SIZE", "of-run"},
                            {"RANK", "WORLD_SIZE", "torchrun"},
                            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                             "mpirun"},
                            {"SLURM_PROCID", "SLURM_NTASKS", "srun"}};
  for (const Source &source : sources) {
    absl::StatusOr<std::optional<int>> rank = intFromEnv(source.rank);
    if (!rank.ok())
      return rank.status();
    if (!*rank)
      continue;
    absl::StatusOr<std::optional<int>> world = intFromEnv(source.world);
    if (!world.ok())
      return world.status();
    if (!*world)
      return absl::InvalidArgumentError(
          std::string(source.rank) + " is set but " + source.world +
          " is not (" + source.launcher + " sets both)");
    if (**rank >= **world)
      return absl::InvalidArgumentError(
          std::string(source.rank) + "=" + std::to_string(**rank) +
          " is not below " + source.world + "=" + std::to_string(**world));
    ProcessRank result{**rank, **world, source.launcher, "", source.rank};
    if (const char *dir = std::getenv("OF_STORE_DIR"))
      result.storeDir = dir;
    return std::optional<ProcessRank>(result);
  }
  return std::nullopt;
}

namespace {

// The launcher's ranks, for its signal handler (async-signal-safe: it only
// reads these and calls kill).
constexpr int kMaxLaunched = 4096;
pid_t launchedPids[kMaxLaunched];
std::atomic<int> launchedCount{0};

/// Passes Ctrl-C and SIGTERM on to the ranks, which stop together at one
/// step. A second Ctrl-C kills them and exits at once: the ranks cannot be
/// relied on to see two signals (a stopped or busy process gets the two
/// forwarded ones as one).
extern "C" void forwardSignal(int sig) {
  bool again = isSecondInterrupt(sig);
  int count = launchedCount.load();
  for (int i = 0; i < count; ++i)
    kill(launchedPids[i], again ? SIGKILL : sig);
  if (again)
    exitOnSecondInterrupt();
}

/// A process that outlives the launcher only to clean up after it: when
/// the launcher closes `pipeRead`'s other end, or dies (even by SIGKILL),
/// it removes the store directory. (The ranks die with the launcher by
/// their parent-death signal.)
void runGuardian(int pipeRead, const std::string &storeDir) {
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  char byte;
  ssize_t got;
  do
    got = read(pipeRead, &byte, 1);
  while (got > 0 || (got < 0 && errno == EINTR));
  std::error_code ignored;
  std::filesystem::remove_all(storeDir, ignored);
  _exit(0);
}

/// "exited with status 1", "was killed by signal 9 (Killed)".
std::string describeExit(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "ended with wait status " + std::to_string(status);
}

/// Waits for every rank. After the first failure (a non-zero status other
/// than an interrupted run's, or a signal), the others get the collective
/// timeout and some seconds to notice and end; then they are killed. Says
/// which rank failed first and how, then the others; returns the exit code
/// of the job.
int waitForRanks(const std::vector<pid_t> &children, int processes,
                 std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  auto grace = timeout + std::chrono::seconds(5);
  std::map<pid_t, int> rankOf;
  for (size_t i = 0; i < children.size(); ++i)
    rankOf[children[i]] = i;
  std::set<int> running;
  for (size_t i = 0; i < children.size(); ++i)
    running.insert(i);
  std::vector<std::string> failures;
  std::set<int> killed;
  bool interrupted = false;
  std::optional<Clock::time_point> deadline;
  while (!running.empty()) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && rankOf.count(pid)) {
      int rank = rankOf[pid];
      running.erase(rank);
      bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      bool stopped =
          WIFEXITED(status) && WEXITSTATUS(status) == kInterruptedExit;
      interrupted |= stopped;
      // An interrupted rank is no failure, but the others must follow it.
      if (stopped && !deadline)
        deadline = Clock::now() + grace;
      if (clean || stopped)
        continue;
      failures.push_back(
          "rank " + std::to_string(rank) + " " +
          (killed.count(rank)
               ? "did not end within " +
                     std::to_string(
                         std::chrono::duration_cast<std::chrono::seconds>(grace)
                             .count()) +
                     " s of the first failure and was killed"
               : describeExit(status)));
      if (!deadline)
        deadline = Clock::now() + grace;
      continue;
    }
    if (pid < 0 && errno != EINTR)
      break;
    if (deadline && Clock::now() > *deadline && killed.empty())
      for (int rank : running) {
        kill(children[rank], SIGKILL);
        killed.insert(rank);
      }
    if (pid <= 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int missing = processes - static_cast<int>(children.size());
  if (failures.empty() && missing == 0)
    return interrupted ? kInterruptedExit : 0;
  std::string message;
  for (size_t i = 0; i < failures.size(); ++i)
    message += (i == 0 ? "" : i == 1 ? "; then " : ", ") + failures[i];
  if (missing > 0)
    message += std::string(message.empty() ? "" : "; ") +
               std::to_string(missing) + (missing == 1 ? " rank" : " ranks") +
               " could not be started";
  std::fprintf(stderr, "%s: error: %s\n", programName(), message.c_str());
  return 1;
}

} // namespace

int ofdriver::launchProcesses(int processes,
                              const std::vector<std::string> &args,
                              std::chrono::milliseconds timeout) {
  if (processes > kMaxLaunched) {
    std::fprintf(stderr, "%s: error: --nproc-per-node %d is more than %d\n",
                 programName(), processes, kMaxLaunched);
    return 1;
  }
  char dirTemplate[] = "/tmp/of-run-store-XXXXXX";
  if (!mkdtemp(dirTemplate)) {
    std::fprintf(stderr, "%s: error: cannot create a store directory: %s\n",
                 programName(), std::strerror(errno));
    return 1;
  }
  std::string storeDir = dirTemplate;
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  int guardianPipe[2];
  if (pipe2(guardianPipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "%s: error: cannot create a pipe: %s\n", programName(),
                 std::strerror(errno));
    std::error_code ignored;
    std::filesystem::remove_all(storeDir, ignored);
    return 1;
  }
  std::fflush(nullptr);
  pid_t guardian = fork();
  if (guardian == 0) {
    close(guardianPipe[1]);
    runGuardian(guardianPipe[0], storeDir);
  }
  close(guardianPipe[0]);
  pid_t launcher = getpid();
  // Signals reach the ranks through the launcher only (each rank has its
  // own process group), so a Ctrl-C at the terminal arrives once.
  launchedCount = 0;
  std::signal(SIGINT, forwardSignal);
  std::signal(SIGTERM, forwardSignal);
  std::vector<pid_t> children;
  for (int rank = 0; rank < processes; ++rank) {
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "%s: error: cannot start rank %d: %s\n",
                   programName(), rank, std::strerror(errno));
      break;
    }
    if (pid == 0) {
      // A rank dies with its launcher, however the launcher ends.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != launcher)
        _exit(1);
      std::signal(SIGINT, SIG_DFL);
      std::signal(SIGTERM, SIG_DFL);
      setenv("OF_RANK", std::to_string(rank).c_str(), 1);
      setenv("OF_WORLD_SIZE", std::to_string(processes).c_str(), 1);
      setenv("OF_STORE_DIR", storeDir.c_str(), 1);
      // A rank launches nothing: its --nproc-per-node is 0 (the last value
      // given wins; before a "--", after which arguments are positional),
      // so that one given with a launcher's rank is the user's.
      std::vector<std::string> rankArgs = args;
      rankArgs.insert(std::find(rankArgs.begin(), rankArgs.end(), "--"),
                      "--nproc_per_node=0");
      std::vector<char *> argv{const_cast<char *>(self.c_str())};
      for (const std::string &arg : rankArgs)
        argv.push_back(const_cast<char *>(arg.c_str()));
      argv.push_back(nullptr);
      execv(self.c_str(), argv.data());
      std::fprintf(stderr, "%s: error: cannot run %s: %s\n", programName(),
                   self.c_str(), std::strerror(errno));
      _exit(127);
    }
    children.push_back(pid);
    launchedPids[rank] = pid;
    launchedCount = rank + 1;
  }
  int code = waitForRanks(children, processes, timeout);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::error_code ignored;
  std::filesystem::remove_all(storeDir, ignored);
  close(guardianPipe[1]); // The guardian finds nothing left and exits.
  waitpid(guardian, nullptr, 0);
  return code;
}
