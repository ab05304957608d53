// Writes own only what they create (issue 15, Note [Safe writes] in runtime/io/safe_write.cpp):
// folders, devices, FIFOs, sockets and symlinks to them are refused before anything is written;
// long names work; concurrent writers publish whole pairs; SIGINT/SIGTERM leave no temporary;
// temporaries of killed processes are removed by the next write. CLI runs use DMLRT_BINARY and
// the plan in data/write_safety/.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/test_files.h"
#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "instructions/scalar_value.h"
#include "runtime/io/matrix_io.h"
#include "runtime/io/mtd.h"
#include "runtime/io/safe_write.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using dmlrt::inst::FileFormat;
using dmlrt::inst::MatrixMeta;
using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::read_all;
using dmlrt::test::write_file;
namespace io = dmlrt::io;

namespace {

const std::string kPlan = dmlrt::test::test_data_dir() + "/unit/data/write_safety/write_rand.plan";

// A fresh folder per use, removed at the end.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& tag) {
    static std::atomic<int> counter{0};
    dir = fs::temp_directory_path() /
          ("dmlrt_ws_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
  std::vector<std::string> names() const { return names_in(dir); }
  static std::vector<std::string> names_in(const fs::path& d) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(d)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

FileFormat format_of(const std::string& f) {
  FileFormat fmt;
  fmt.format = f;
  return fmt;
}

mode_t lmode(const std::string& path) {
  struct stat st;
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode;
}

bool has_temporary(const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [](const std::string& n) {
    return n.find(".dmlrt-tmp-") != std::string::npos;
  });
}

const MatrixBlock kBlock = MatrixBlock::dense(2, 3, 1.5);

// A started dmlrt process, stdout and stderr to files in `cwd`.
pid_t spawn_dmlrt(const fs::path& cwd, const std::vector<std::string>& args) {
  const std::string out = (cwd / "dmlrt.out").string(), err = (cwd / "dmlrt.err").string();
  std::vector<std::string> all = {dmlrt::test::dmlrt_binary(), "-f", kPlan};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Async-signal-safe calls only. Signals the test runner ignores or blocks are reset, so the
    // CLI sees the dispositions a shell gives it.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::chdir(cwd.c_str()) != 0) ::_exit(120);
    const int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) ::_exit(121);
    ::dup2(fo, 1);
    ::dup2(fe, 2);
    ::execv(argv[0], argv.data());
    ::_exit(122);
  }
  return pid;
}

// The wait status of `pid`; kills it and fails after `seconds`.
int wait_for(pid_t pid, int seconds = 120) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    REQUIRE(r >= 0);
    if (r == pid) return status;
    if (std::chrono::steady_clock::now() > end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("dmlrt did not finish within " << seconds << " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

struct CliResult {
  int code = -1;
  std::string err;
};

CliResult run_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  const int status = wait_for(spawn_dmlrt(cwd, args));
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_all(cwd / "dmlrt.err");
  fs::remove(cwd / "dmlrt.out");
  fs::remove(cwd / "dmlrt.err");
  return r;
}

// Waits until a temporary appears in `dir` (a write is in progress); false after 60 s or when
// the process ended first.
bool wait_for_temporary(const fs::path& dir, pid_t pid) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < end) {
    if (has_temporary(Scratch::names_in(dir))) return true;
    int status;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Every file of `dir` (other than the CLI's stdout/stderr) with its bytes.
std::map<std::string, std::string> contents_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    if (rel == "dmlrt.out" || rel == "dmlrt.err") continue;
    out[rel] = e.is_regular_file() ? read_all(e.path()) : "<folder>";
  }
  return out;
}

// A pid that has ended: a child that exits at once, reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) ::_exit(0);
  int status;
  ::waitpid(pid, &status, 0);
  return pid;
}

}  // namespace

TEST_CASE("a write to a folder is refused and the folder is kept", "[io][safety]") {
  Scratch tmp("folder");
  fs::create_directories(tmp / "results/sub");
  write_file(tmp / "results/mine.txt", "user data\n");
  write_file(tmp / "results/sub/deep.txt", "more\n");
  const auto before = contents_of(tmp.dir);
  for (const std::string& path : {tmp / "results", tmp / "results/", tmp / "results/sub/.."}) {
    for (const std::string fmt : {"csv", "text", "mm", "npy"}) {
      INFO(path << " " << fmt);
      REQUIRE_THROWS_WITH(io::write_matrix(kBlock, path, format_of(fmt)),
                          Contains(path + ": cannot") && Contains("folder") &&
                              Contains("never removes or replaces a folder"));
    }
    REQUIRE_THROWS_WITH(io::write_scalar(ScalarValue::fp64(1), path),
                        Contains(path + ": cannot") && Contains("folder"));
  }
  CHECK(contents_of(tmp.dir) == before);
  CHECK_FALSE(fs::exists(tmp / "results.mtd"));

  SECTION("a SystemDS multi-part folder still reads, and is not replaced by a write") {
    fs::create_directories(tmp / "x.csv");
    write_file(tmp / "x.csv/0-m-00000", "1,2\n");
    write_file(tmp / "x.csv/0-m-00001", "3,4\n");
    REQUIRE(io::read_matrix(tmp / "x.csv", format_of("csv"), MatrixMeta{})
                .equals(MatrixBlock::dense(2, 2, {1, 2, 3, 4})));
    REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "x.csv", format_of("csv")),
                        Contains("cannot replace the folder '" + (tmp / "x.csv") + "'"));
    CHECK(Scratch::names_in(tmp / "x.csv") == std::vector<std::string>{"0-m-00000", "0-m-00001"});
  }
}

TEST_CASE("cli: write(X, \".\") and out=results/ keep every file", "[io][safety][cli]") {
  Scratch tmp("cwd");
  write_file(tmp / "notes.txt", "mine\n");
  write_file(tmp / "data.csv", "1,2\n");
  fs::create_directories(tmp / "results/old");
  write_file(tmp / "results/report.txt", "keep me\n");
  write_file(tmp / "results/old/r.csv", "3\n");
  const auto before = contents_of(tmp.dir);
  struct Case {
    std::string out, shown, kind;
  };
  for (const Case& c : {Case{".", "'.'", "folder"}, Case{"results/", "'results/'", "folder"},
                        Case{"results", "'results'", "folder"}}) {
    INFO(c.out);
    const CliResult r = run_cli(tmp.dir, {"-nvargs", "rows=3", "cols=2", "out=" + c.out});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains(c.out + ": cannot") && Contains(c.shown) && Contains(c.kind));
    CHECK(contents_of(tmp.dir) == before);
  }
  // And a plain name still writes.
  const CliResult ok = run_cli(tmp.dir, {"-nvargs", "rows=3", "cols=2", "out=results/X.csv"});
  CHECK(ok.code == 0);
  CHECK(ok.err.empty());
  CHECK(fs::is_regular_file(tmp / "results/X.csv"));
  CHECK(fs::is_regular_file(tmp / "results/X.csv.mtd"));
  CHECK(read_all(tmp / "results/report.txt") == "keep me\n");
}

TEST_CASE("/dev/null is refused and stays a character device", "[io][safety]") {
  REQUIRE(S_ISCHR(lmode("/dev/null")));
  REQUIRE_THROWS_WITH(io::write_matrix(kBlock, "/dev/null", format_of("csv")),
                      Contains("/dev/null: cannot replace the character device '/dev/null'"));
  REQUIRE_THROWS_WITH(io::write_matrix(kBlock, "/dev/null", format_of("mm")),
                      Contains("character device '/dev/null'"));
  REQUIRE_THROWS_WITH(io::write_scalar(ScalarValue::int64(3), "/dev/null"),
                      Contains("character device '/dev/null'"));
  CHECK(S_ISCHR(lmode("/dev/null")));
  CHECK_FALSE(has_temporary(Scratch::names_in("/dev")));
}

TEST_CASE("a FIFO is refused without being opened and stays a FIFO", "[io][safety]") {
  Scratch tmp("fifo");
  REQUIRE(::mkfifo((tmp / "pipe").c_str(), 0600) == 0);
  // Opening the FIFO for writing would block this test forever: the check must not open it.
  REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "pipe", format_of("csv")),
                      Contains("pipe: cannot replace the FIFO (named pipe) '" + (tmp / "pipe")));
  REQUIRE_THROWS_WITH(io::write_scalar(ScalarValue::fp64(2), tmp / "pipe"), Contains("FIFO"));
  CHECK(S_ISFIFO(lmode(tmp / "pipe")));
  // A FIFO at the .mtd name.
  REQUIRE(::mkfifo((tmp / "x.csv.mtd").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "x.csv", format_of("csv")),
                      Contains("x.csv: cannot replace the FIFO (named pipe) '" +
                               (tmp / "x.csv.mtd") + "' with its metadata file"));
  REQUIRE_THROWS_WITH(
      io::write_matrix(kBlock, tmp / "x.csv", format_of("mm")),
      Contains("cannot remove the old metadata file '" + (tmp / "x.csv.mtd") + "': it is a FIFO"));
  CHECK(S_ISFIFO(lmode(tmp / "x.csv.mtd")));
  CHECK(tmp.names() == std::vector<std::string>{"pipe", "x.csv.mtd"});
}

TEST_CASE("reading a FIFO or a device is refused at once, never blocks", "[io][safety]") {
  Scratch tmp("fiforead");
  REQUIRE(::mkfifo((tmp / "pipe").c_str(), 0600) == 0);
  // Opening a FIFO without a writer blocks forever: the reader must not open it.
  REQUIRE_THROWS_WITH(io::read_matrix(tmp / "pipe", format_of("csv"), MatrixMeta{}),
                      Contains("pipe: is a FIFO (named pipe), not a regular file"));
  REQUIRE_THROWS_WITH(io::read_scalar(tmp / "pipe", dmlrt::inst::ValueType::kFP64),
                      Contains("is a FIFO (named pipe)"));
  // /dev/zero never ends.
  REQUIRE_THROWS_WITH(io::read_matrix("/dev/zero", format_of("csv"), MatrixMeta{}),
                      Contains("/dev/zero: is a character device, not a regular file"));
  CHECK(S_ISFIFO(lmode(tmp / "pipe")));
}

TEST_CASE("a socket is refused and stays a socket", "[io][safety]") {
  Scratch tmp("sock");
  const std::string path = tmp / "s";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE_THROWS_WITH(io::write_matrix(kBlock, path, format_of("text")),
                      Contains(path + ": cannot replace the socket '" + path + "'"));
  CHECK(S_ISSOCK(lmode(path)));
  ::close(fd);
  CHECK(tmp.names() == std::vector<std::string>{"s"});
}

TEST_CASE("symlinks: to a folder refused, to a file written through", "[io][safety]") {
  Scratch tmp("link");
  fs::create_directories(tmp / "dir");
  write_file(tmp / "dir/mine.txt", "keep\n");
  fs::create_directory_symlink(tmp / "dir", tmp / "to_dir");
  REQUIRE_THROWS_WITH(
      io::write_matrix(kBlock, tmp / "to_dir", format_of("csv")),
      Contains("to_dir: cannot replace the symbolic link '" + (tmp / "to_dir") + "' to a folder"));
  CHECK(fs::is_symlink(tmp / "to_dir"));
  CHECK(Scratch::names_in(tmp / "dir") == std::vector<std::string>{"mine.txt"});

  SECTION("a link to /dev/null") {
    fs::create_symlink("/dev/null", tmp / "to_null");
    REQUIRE_THROWS_WITH(
        io::write_matrix(kBlock, tmp / "to_null", format_of("csv")),
        Contains("symbolic link '" + (tmp / "to_null") + "' to a character device"));
    CHECK(fs::read_symlink(tmp / "to_null") == "/dev/null");
    CHECK(S_ISCHR(lmode("/dev/null")));
  }
  SECTION("a dangling link is refused and kept") {
    fs::create_symlink(tmp / "nowhere.csv", tmp / "dangling");
    REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "dangling", format_of("csv")),
                        Contains("through the symbolic link '" + (tmp / "dangling") +
                                 "': it names a file that does not exist"));
    CHECK(fs::is_symlink(tmp / "dangling"));
    CHECK_FALSE(fs::exists(tmp / "nowhere.csv"));
  }
  SECTION("a link to a regular file: the file gets the new contents, the link stays") {
    fs::create_directories(tmp / "store");
    write_file(tmp / "store/real.csv", "old\n");
    fs::create_symlink(tmp / "store/real.csv", tmp / "out.csv");
    io::write_matrix(kBlock, tmp / "out.csv", format_of("csv"));
    CHECK(fs::is_symlink(tmp / "out.csv"));
    CHECK(fs::read_symlink(tmp / "out.csv") == tmp / "store/real.csv");
    CHECK(read_all(tmp / "store/real.csv") == "1.5,1.5,1.5\n1.5,1.5,1.5\n");
    // The .mtd goes beside the name written (a reader of out.csv reads out.csv.mtd).
    CHECK(fs::is_regular_file(tmp / "out.csv.mtd"));
    CHECK(io::read_matrix(tmp / "out.csv", format_of(""), MatrixMeta{}).equals(kBlock));
    CHECK(Scratch::names_in(tmp / "store") == std::vector<std::string>{"real.csv"});
    // A symlinked .mtd is written through too.
    write_file(tmp / "store/meta", "{}");
    fs::remove(tmp / "out.csv.mtd");
    fs::create_symlink(tmp / "store/meta", tmp / "out.csv.mtd");
    io::write_matrix(MatrixBlock::dense(1, 1, 4.0), tmp / "out.csv", format_of("csv"));
    CHECK(fs::is_symlink(tmp / "out.csv.mtd"));
    CHECK_THAT(read_all(tmp / "store/meta"), Contains("\"rows\": 1"));
    CHECK(io::read_matrix(tmp / "out.csv", format_of(""), MatrixMeta{})
              .equals(MatrixBlock::dense(1, 1, 4.0)));
    // For mm (no .mtd) a symlinked stale .mtd is refused, not removed.
    REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "out.csv", format_of("mm")),
                        Contains("cannot remove the old metadata file '" + (tmp / "out.csv.mtd") +
                                 "': it is a symbolic link"));
    CHECK(fs::is_symlink(tmp / "out.csv.mtd"));
  }
  CHECK_FALSE(has_temporary(tmp.names()));
}

TEST_CASE("a folder at target.mtd is refused before anything is written", "[io][safety]") {
  Scratch tmp("mtddir");
  fs::create_directories(tmp / "x.csv.mtd");
  write_file(tmp / "x.csv.mtd/inside.txt", "keep\n");
  write_file(tmp / "x.csv", "old\n");
  for (const std::string fmt : {"csv", "text"}) {
    REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "x.csv", format_of(fmt)),
                        Contains("x.csv: cannot replace the folder '" + (tmp / "x.csv.mtd") +
                                 "' with its metadata file"));
  }
  for (const std::string fmt : {"mm", "npy"}) {
    REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / "x.csv", format_of(fmt)),
                        Contains("cannot remove the old metadata file '" + (tmp / "x.csv.mtd") +
                                 "': it is a folder"));
  }
  REQUIRE_THROWS_WITH(io::write_scalar(ScalarValue::fp64(1), tmp / "x.csv"),
                      Contains("folder '" + (tmp / "x.csv.mtd") + "'"));
  CHECK(read_all(tmp / "x.csv") == "old\n");
  CHECK(read_all(tmp / "x.csv.mtd/inside.txt") == "keep\n");
  CHECK(tmp.names() == std::vector<std::string>{"x.csv", "x.csv.mtd"});
}

TEST_CASE("255-byte file names write", "[io][safety]") {
  Scratch tmp("long");
  const std::string n255(251, 'a'), name255 = n255 + ".mtx";
  REQUIRE(name255.size() == 255);
  io::write_matrix(kBlock, tmp / name255, format_of("mm"));
  CHECK(io::read_matrix(tmp / name255, format_of("mm"), MatrixMeta{}).equals(kBlock));
  const std::string npy255 = std::string(251, 'b') + ".npy";
  io::write_matrix(kBlock, tmp / npy255, format_of("npy"));
  CHECK(io::read_matrix(tmp / npy255, format_of("npy"), MatrixMeta{}).equals(kBlock));
  // The longest csv name whose .mtd fits: 251 bytes.
  const std::string csv251 = std::string(247, 'c') + ".csv";
  io::write_matrix(kBlock, tmp / csv251, format_of("csv"));
  CHECK(io::read_matrix(tmp / csv251, format_of(""), MatrixMeta{}).equals(kBlock));
  CHECK(fs::is_regular_file(tmp / (csv251 + ".mtd")));
  io::write_scalar(ScalarValue::int64(5), tmp / (std::string(251, 's')));
  CHECK(
      io::read_scalar(tmp / std::string(251, 's'), dmlrt::inst::ValueType::kUnknown).to_string() ==
      "5");
  // A 255-byte csv name: its .mtd cannot exist; refused before anything is written.
  const std::string csv255 = std::string(251, 'd') + ".csv";
  REQUIRE_THROWS_WITH(io::write_matrix(kBlock, tmp / csv255, format_of("csv")),
                      Contains(csv255 + ".mtd': " + std::strerror(ENAMETOOLONG)));
  CHECK_FALSE(fs::exists(tmp / csv255));
  CHECK(tmp.names().size() == 6);
  CHECK_FALSE(has_temporary(tmp.names()));
}

TEST_CASE("temporary names are short and keep to their pattern", "[io][safety]") {
  const std::string a = io::detail::temp_file_name(std::string(255, 'x'), 4194304, ~0ull);
  CHECK(a.size() <= 70);
  CHECK(a[0] == '.');
  CHECK_THAT(a, Contains(".dmlrt-tmp-") && Contains("-4194304-18446744073709551615"));
  CHECK(io::detail::temp_file_name("x.csv", 1, 0) != io::detail::temp_file_name("y.csv", 1, 0));
}

TEST_CASE("writes install no signal handler by themselves", "[io][safety]") {
  Scratch tmp("nosig");
  struct sigaction before, after;
  REQUIRE(::sigaction(SIGHUP, nullptr, &before) == 0);
  io::write_matrix(kBlock, tmp / "x.csv", format_of("csv"));
  REQUIRE(::sigaction(SIGHUP, nullptr, &after) == 0);
  CHECK(after.sa_handler == before.sa_handler);
}

TEST_CASE("concurrent writers of one path publish whole pairs", "[io][safety]") {
  Scratch tmp("race");
  const std::string path = tmp / "out.csv";
  constexpr int kWriters = 8, kWrites = 40;
  std::vector<pid_t> kids;
  for (int k = 0; k < kWriters; ++k) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Writer k: a (k+1) x (k+2) matrix of the value k+1, so any reader can tell whose it is.
      int rc = 0;
      try {
        const MatrixBlock b = MatrixBlock::dense(k + 1, k + 2, double(k + 1));
        for (int i = 0; i < kWrites; ++i) io::write_matrix(b, path, format_of("csv"));
      } catch (...) {
        rc = 1;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  // Read while they write: each read sees one writer's data with that writer's .mtd.
  auto all_finished = [&] {
    for (pid_t p : kids) {
      siginfo_t info{};
      if (::waitid(P_PID, p, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
        return false;
    }
    return true;
  };
  int reads = 0, bad = 0;
  std::string first_bad;
  for (int i = 0; i < 100000 && !all_finished(); ++i) {
    if (!fs::exists(path)) continue;
    ++reads;
    try {
      const MatrixBlock m = io::read_matrix(path, format_of(""), MatrixMeta{});
      const bool ok = m.rows() >= 1 && m.rows() <= kWriters && m.cols() == m.rows() + 1 &&
                      m.equals(MatrixBlock::dense(m.rows(), m.cols(), double(m.rows())));
      if (!ok && bad++ == 0)
        first_bad = "a " + std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
                    " matrix of other values";
    } catch (const std::exception& e) {
      if (bad++ == 0) first_bad = e.what();
    }
  }
  for (pid_t p : kids) {
    const int status = wait_for(p);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  INFO("first bad read: " << first_bad);
  CHECK(bad == 0);
  CHECK(reads > 0);
  // Afterwards the data and the .mtd agree, parsed separately.
  const io::Mtd mtd = io::parse_mtd(read_all(path + ".mtd"), path + ".mtd");
  const std::string data = read_all(path);
  const int64_t lines = std::count(data.begin(), data.end(), '\n');
  const int64_t commas = std::count(data.begin(), data.end(), ',');
  CHECK(mtd.rows == lines);
  CHECK(commas == lines * (mtd.cols - 1));
  CHECK(mtd.cols == mtd.rows + 1);
  CHECK(tmp.names() == std::vector<std::string>{"out.csv", "out.csv.mtd"});
}

TEST_CASE("cli: SIGTERM, SIGINT and SIGHUP during a large write leave no temporary",
          "[io][safety][cli]") {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    INFO("signal " << ::strsignal(sig));
    Scratch tmp("sig");
    write_file(tmp / "big.csv", "old\n");  // the old output stays as it was
    const pid_t pid = spawn_dmlrt(tmp.dir, {"-nvargs", "rows=4000", "cols=4000", "out=big.csv"});
    REQUIRE(wait_for_temporary(tmp.dir, pid));
    REQUIRE(::kill(pid, sig) == 0);
    const int status = wait_for(pid);
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
    CHECK(tmp.names() == std::vector<std::string>{"big.csv", "dmlrt.err", "dmlrt.out"});
    CHECK(read_all(tmp / "big.csv") == "old\n");
  }
}

TEST_CASE("leftover temporaries of dead processes are removed by the next write", "[io][safety]") {
  Scratch tmp("stale");
  const pid_t gone = dead_pid();
  const std::string dead = io::detail::temp_file_name("x.csv", gone, 0);
  const std::string dead_mtd = io::detail::temp_file_name("x.csv.mtd", gone, ~0ull);
  const std::string live = io::detail::temp_file_name("x.csv", ::getpid(), 99999);
  write_file(tmp / dead, std::string(1000, 'd'));
  write_file(tmp / live, "live");
  write_file(tmp / dead_mtd, "{}");
  // Not of dmlrt's current pattern (or of another host): never touched.
  const std::string old_style = ".x.csv.dmlrt-tmp-" + std::to_string(dead_pid()) + "-0";
  const std::string other_host = ".0123456789abcdef.dmlrt-tmp-zzzzzzzz-1-0";
  write_file(tmp / old_style, "o");
  write_file(tmp / other_host, "h");
  write_file(tmp / "user.txt", "u");
  io::write_matrix(kBlock, tmp / "y.csv", format_of("csv"));
  std::vector<std::string> want = {live, old_style, other_host, "user.txt", "y.csv", "y.csv.mtd"};
  std::sort(want.begin(), want.end());
  CHECK(tmp.names() == want);
}

TEST_CASE("cli: after kill -9 the next write into the folder removes the temporary",
          "[io][safety][cli]") {
  Scratch tmp("kill9");
  const pid_t pid = spawn_dmlrt(tmp.dir, {"-nvargs", "rows=4000", "cols=4000", "out=big.csv"});
  REQUIRE(wait_for_temporary(tmp.dir, pid));
  REQUIRE(::kill(pid, SIGKILL) == 0);
  const int status = wait_for(pid);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  CHECK(has_temporary(tmp.names()));  // SIGKILL cannot be caught
  const CliResult r = run_cli(tmp.dir, {"-nvargs", "rows=2", "cols=2", "out=small.csv"});
  CHECK(r.code == 0);
  CHECK(tmp.names() == std::vector<std::string>{"small.csv", "small.csv.mtd"});
}
