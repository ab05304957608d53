// Writes that own only what they create: target checks, temporaries registered with
// async-signal-safe cleanup handlers, removal of temporaries a killed dmlrt left behind, and
// publication of a data file and its .mtd as one pair under a folder lock.
#include "runtime/io/safe_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <tuple>

#include "gpu_context/error.h"

// Note [Safe writes]
// dmlrt never deletes or replaces what it did not create (DESIGN.md §7). A write of `path`:
//  1. lstat()s `path` and `path`.mtd before anything is written. Each may be absent, a regular
//     file, or a symlink to a regular file; a symlink is written through (the file it names gets
//     the new contents, the link stays valid). A folder (dmlrt writes no multi-part folder form),
//     device, FIFO, socket, symlink to one or dangling symlink is refused with an IoError naming
//     the path and what it is. A write without .mtd (mm, npy) removes a stale `path`.mtd, which
//     must then be a regular file.
//  2. creates the missing parent folders and removes the temporaries that killed dmlrt processes
//     of this host left in the target's folder (remove_stale_temporaries).
//  3. writes each file to a temporary beside its target: created with O_EXCL, named from a hash
//     of the target's name (so a 255-byte target name works) and registered in a fixed-size
//     registry that the SIGINT/SIGTERM/SIGHUP handlers walk without allocating.
//  4. takes LOCK_EX on the folder(s) of the pair, re-checks both names, renames both temporaries
//     into place and unlocks, with the cleanup signals held off meanwhile (PublishingScope).
//     read_matrix/read_scalar hold LOCK_SH on the same folders while they read a file and its .mtd,
//     so no reader sees the data of one writer with the .mtd of another, and concurrent writers of
//     one path end with one writer's complete pair. Locks are advisory: other programs (SystemDS)
//     reading at the same time are not covered.

namespace dmlrt::io {
namespace fs = std::filesystem;
namespace detail {
namespace {

constexpr const char* kTmpMarker = ".dmlrt-tmp-";
constexpr const char* kWhy =
    "; dmlrt writes each output as one regular file and never removes or replaces a folder, "
    "device, FIFO or socket (remove it yourself, or choose another file name)";

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

void append_hex(std::string& out, uint64_t v, int digits) {
  static const char* kHex = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out += kHex[(v >> (4 * i)) & 0xf];
}

// Tells temporaries of this host and pid namespace from those of others sharing the folder (NFS,
// containers): a pid is only judged alive or dead where it was taken.
uint32_t host_tag() {
  static const uint32_t tag = [] {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string id = host;
    char ns[128];
    const ssize_t n = ::readlink("/proc/self/ns/pid", ns, sizeof ns);
    if (n > 0) id.append(ns, static_cast<size_t>(n));
    const uint64_t h = fnv1a(id.data(), id.size());
    return static_cast<uint32_t>(h ^ (h >> 32));
  }();
  return tag;
}

bool is_hex(const std::string& s, size_t pos, size_t n) {
  if (s.size() < pos + n) return false;
  return std::all_of(s.begin() + pos, s.begin() + pos + n,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Reads the digits at `pos` (at most 18) and the `end_char` after them.
bool parse_digits(const std::string& s, size_t& pos, char end_char, long& out) {
  const size_t start = pos;
  out = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    if (pos - start >= 18) return false;
    out = out * 10 + (s[pos++] - '0');
  }
  return pos > start && pos < s.size() && s[pos++] == end_char;
}

// The pid of a temporary name made by temp_file_name on this host, else false.
bool parse_temp_name(const std::string& name, long& pid) {
  const size_t marker = 17;  // "." + 16 hex digits
  if (name.empty() || name[0] != '.' || !is_hex(name, 1, 16)) return false;
  if (name.compare(marker, std::strlen(kTmpMarker), kTmpMarker) != 0) return false;
  size_t pos = marker + std::strlen(kTmpMarker);
  if (!is_hex(name, pos, 8)) return false;
  std::string tag;
  append_hex(tag, host_tag(), 8);
  if (name.compare(pos, 8, tag) != 0) return false;
  pos += 8;
  if (pos >= name.size() || name[pos++] != '-') return false;
  if (!parse_digits(name, pos, '-', pid)) return false;
  return pos < name.size() &&  // the counter: any number of digits
         std::all_of(name.begin() + pos, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string folder_of(const std::string& path) {
  const std::string p = fs::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "folder";
  if (S_ISCHR(m)) return "character device";
  if (S_ISBLK(m)) return "block device";
  if (S_ISFIFO(m)) return "FIFO (named pipe)";
  if (S_ISSOCK(m)) return "socket";
  if (S_ISLNK(m)) return "symbolic link";
  return "special file";
}

std::string real_path(const std::string& path) {
  char* r = ::realpath(path.c_str(), nullptr);
  if (r == nullptr) return path;
  std::string out(r);
  std::free(r);
  return out;
}

// ---- The signal registry ----
// Fixed slots the handler walks without allocating or locking: state 0 = free, 1 = being filled
// or cleared, 2 = holds a live temporary (dir_fd, name). A slot being reused while the handler
// runs in another thread may show it a torn name; the worst it can then unlink is another
// temporary of this dying process.

constexpr int kSlots = 256;
constexpr size_t kNameCap = 96;  // temp_file_name's names are under 80 bytes

struct Slot {
  std::atomic<int> state{0};
  std::atomic<int> dir_fd{-1};
  char name[kNameCap];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

Slot g_slots[kSlots];
std::atomic<uint64_t> g_tmp_counter{0};
std::atomic<bool> g_handlers_installed{false};
// Threads inside publish_pair's renames. They block the cleanup signals; a handler running on
// another thread waits for them, so a signal never splits a pair (new data beside an old .mtd).
std::atomic<int> g_publishing{0};
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

int register_temp(int dir_fd, const std::string& name) {
  if (name.size() >= kNameCap) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    g_slots[i].dir_fd.store(dir_fd);
    std::memcpy(g_slots[i].name, name.c_str(), name.size() + 1);
    g_slots[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;  // all slots busy: this temporary is still removed on errors, not on signals
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0, std::memory_order_release);
}

// Async-signal-safe: poll, unlinkat, sigaction and raise only.
extern "C" void cleanup_and_reraise(int sig) {
  const int saved_errno = errno;
  // Let a publication in progress on another thread finish (a few renames; at most ~2 s).
  for (int i = 0; i < 2000 && g_publishing.load() > 0; ++i) ::poll(nullptr, 0, 1);
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == 2) ::unlinkat(s.dir_fd.load(), s.name, 0);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved_errno;
  // Pending until this handler returns and unblocks it; the default action then ends the process,
  // so its exit status still says "killed by <sig>".
  ::raise(sig);
}

}  // namespace

// ---- Target checks ----

WriteTarget check_write_target(const std::string& owner, const std::string& path,
                               const char* role) {
  DMLRT_REQUIRE(!path.empty(), IoError, "cannot write to an empty file name");
  WriteTarget t;
  t.path = t.resolved = path;
  t.role = role;
  DMLRT_REQUIRE(path.back() != '/', IoError,
                owner << ": cannot write " << role << " to '" << path
                      << "': the name ends in '/', so it names a folder" << kWhy);
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    const int err = errno;
    // ENOTDIR: a parent is a file; creating the folders then says so.
    DMLRT_REQUIRE(
        err == ENOENT || err == ENOTDIR, IoError,
        owner << ": cannot write " << role << " '" << path << "': " << std::strerror(err));
    t.folder = folder_of(path);
    return t;
  }
  if (S_ISLNK(st.st_mode)) {
    struct stat to;
    if (::stat(path.c_str(), &to) != 0) {
      const int err = errno;
      DMLRT_FAIL(
          IoError,
          owner << ": cannot write " << role << " through the symbolic link '" << path << "': "
                << (err == ENOENT ? "it names a file that does not exist" : std::strerror(err))
                << "; dmlrt never replaces a symbolic link (make it name a "
                   "regular file, or choose another file name)");
    }
    DMLRT_REQUIRE(S_ISREG(to.st_mode), IoError,
                  owner << ": cannot replace the symbolic link '" << path << "' to a "
                        << kind_of(to.st_mode) << " ('" << real_path(path) << "') with " << role
                        << kWhy);
    t.resolved = real_path(path);  // written through: the link stays valid
  } else {
    DMLRT_REQUIRE(S_ISREG(st.st_mode), IoError,
                  owner << ": cannot replace the " << kind_of(st.st_mode) << " '" << path
                        << "' with " << role << kWhy);
  }
  t.exists = true;
  t.folder = folder_of(t.resolved);
  return t;
}

WriteTarget check_stale_mtd(const std::string& owner, const std::string& mtd_path) {
  WriteTarget t;
  t.path = t.resolved = mtd_path;
  t.folder = folder_of(mtd_path);
  struct stat st;
  if (::lstat(mtd_path.c_str(), &st) != 0) {
    const int err = errno;
    // ENAMETOOLONG: a 252..255-byte target name, whose .mtd cannot exist.
    DMLRT_REQUIRE(err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG, IoError,
                  owner << ": cannot check the old metadata file '" << mtd_path
                        << "': " << std::strerror(err));
    return t;
  }
  DMLRT_REQUIRE(S_ISREG(st.st_mode), IoError,
                owner << ": cannot remove the old metadata file '" << mtd_path << "': it is a "
                      << kind_of(st.st_mode)
                      << ", and dmlrt removes an old .mtd only when it is a regular file (its "
                         "format writes none, so the old one would misdescribe the new file)");
  t.exists = true;
  return t;
}

// ---- Temporaries ----

std::string temp_file_name(const std::string& file_name, long pid, uint64_t n) {
  std::string out = ".";
  append_hex(out, fnv1a(file_name.data(), file_name.size()), 16);
  out += kTmpMarker;
  append_hex(out, host_tag(), 8);
  out += "-" + std::to_string(pid) + "-" + std::to_string(n);
  return out;
}

void remove_stale_temporaries(const std::string& folder) {
  struct stat st;
  if (::stat(folder.c_str(), &st) != 0) return;
  static std::mutex mu;
  static std::set<std::tuple<dev_t, ino_t, std::string>> scanned;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!scanned.emplace(st.st_dev, st.st_ino, real_path(folder)).second) return;
  }
  DIR* d = ::opendir(folder.c_str());
  if (d == nullptr) return;
  const long self = static_cast<long>(::getpid());
  while (const dirent* e = ::readdir(d)) {
    long pid = 0;
    if (!parse_temp_name(e->d_name, pid) || pid <= 0 || pid == self) continue;
    // kill(pid, 0) == ESRCH: no such process, so no write of it is in progress. These names are
    // only made by temp_file_name with this host's tag: removing the file is cleaning up what
    // dmlrt itself created (a process killed by SIGKILL, which no handler can catch).
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    struct stat fst;
    if (::fstatat(::dirfd(d), e->d_name, &fst, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(fst.st_mode))
      continue;
    ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

TempFile::TempFile(const WriteTarget& target) : target_(target) {
  name_ =
      temp_file_name(fs::path(target.resolved).filename().string(), ::getpid(), g_tmp_counter++);
#ifdef O_PATH
  dir_fd_ = ::open(target.folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
  dir_fd_ = ::open(target.folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
  DMLRT_REQUIRE(dir_fd_ >= 0, IoError,
                target.path << ": cannot open its folder '" << target.folder
                            << "': " << std::strerror(errno));
  // Registered before it exists, so no signal can come between creating and registering it.
  slot_ = register_temp(dir_fd_, name_);
  const int fd = ::openat(dir_fd_, name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  const int err = errno;
  if (fd >= 0) f_ = ::fdopen(fd, "wb");
  if (f_ == nullptr) {
    if (fd >= 0) {
      ::close(fd);
      ::unlinkat(dir_fd_, name_.c_str(), 0);
    }
    unregister_temp(slot_);
    ::close(dir_fd_);
    DMLRT_FAIL(IoError, target.path << ": cannot create a file in its folder '" << target.folder
                                    << "': " << std::strerror(fd >= 0 ? ENOMEM : err));
  }
}

TempFile::~TempFile() {
  if (f_) std::fclose(f_);
  if (!published_) ::unlinkat(dir_fd_, name_.c_str(), 0);
  unregister_temp(slot_);
  ::close(dir_fd_);
}

void TempFile::close() {
  const bool bad = std::ferror(f_) != 0;
  const int rc = std::fclose(f_);
  const int err = errno;
  f_ = nullptr;
  DMLRT_REQUIRE(!bad && rc == 0, IoError, target_.path << ": write failed: " << std::strerror(err));
}

void TempFile::publish() {
  DMLRT_REQUIRE(
      ::renameat(dir_fd_, name_.c_str(), AT_FDCWD, target_.resolved.c_str()) == 0, IoError,
      target_.path << ": cannot rename the written file into place: " << std::strerror(errno));
  published_ = true;
  unregister_temp(slot_);
  slot_ = -1;
}

// ---- Folder locks ----

FolderLock::FolderLock(const std::vector<std::string>& folders, bool exclusive) {
  struct Entry {
    dev_t dev;
    ino_t ino;
    int fd;
  };
  std::vector<Entry> entries;
  for (const std::string& f : folders) {
    const int fd = ::open(f.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;  // e.g. a folder without read permission: unlocked
    struct stat st;
    const bool dup =
        ::fstat(fd, &st) != 0 || std::any_of(entries.begin(), entries.end(), [&](const Entry& e) {
          return e.dev == st.st_dev && e.ino == st.st_ino;
        });
    if (dup) {
      ::close(fd);
      continue;
    }
    entries.push_back({st.st_dev, st.st_ino, fd});
  }
  // One global order, so writers and readers of pairs that span two folders cannot deadlock.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.dev, a.ino) < std::tie(b.dev, b.ino);
  });
  for (const Entry& e : entries) {
    int rc;
    do rc = ::flock(e.fd, exclusive ? LOCK_EX : LOCK_SH);
    while (rc != 0 && errno == EINTR);
    if (rc == 0) {
      fds_.push_back(e.fd);
    } else {
      ::close(e.fd);  // no flock on this filesystem (ENOLCK, EOPNOTSUPP, NFS's EBADF): unlocked
    }
  }
}

FolderLock::~FolderLock() {
  for (int fd : fds_) ::close(fd);  // closing the descriptor releases its flock
}

std::vector<std::string> read_lock_folders(const std::string& path) {
  auto folder = [](const std::string& p) {
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return folder_of(real_path(p));
    return folder_of(p);
  };
  return {folder(path), folder(path + ".mtd")};
}

// ---- Publication ----

namespace {

// Blocks the cleanup signals on this thread and counts it in g_publishing for its lifetime;
// a signal that came meanwhile is delivered when the mask is restored.
class PublishingScope {
 public:
  PublishingScope() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kCleanupSignals) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
    g_publishing.fetch_add(1);
  }
  PublishingScope(const PublishingScope&) = delete;
  PublishingScope& operator=(const PublishingScope&) = delete;
  ~PublishingScope() {
    g_publishing.fetch_sub(1);
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_;
};

}  // namespace

void publish_pair(const std::string& owner, TempFile& data, const WriteTarget& data_target,
                  TempFile* meta, const WriteTarget& mtd_target) {
  // Waiting for the lock stays interruptible; from here to the last rename signals wait.
  FolderLock lock({data_target.folder, mtd_target.folder}, /*exclusive=*/true);
  const PublishingScope publishing;
  // Again under the lock: a folder, FIFO or device may have taken a name since the first check,
  // and rename() would replace a FIFO or device.
  const WriteTarget d = check_write_target(owner, data_target.path, data_target.role);
  const WriteTarget m = meta ? check_write_target(owner, mtd_target.path, mtd_target.role)
                             : check_stale_mtd(owner, mtd_target.path);
  DMLRT_REQUIRE(d.resolved == data_target.resolved && m.resolved == mtd_target.resolved, IoError,
                owner << ": a symbolic link at '" << data_target.path << "' or '" << mtd_target.path
                      << "' changed while the output was written; nothing was replaced");
  data.publish();
  if (meta) {
    meta->publish();
  } else if (m.exists) {
    // A regular file (check_stale_mtd): an old .mtd would misdescribe the new file.
    DMLRT_REQUIRE(::unlink(m.resolved.c_str()) == 0 || errno == ENOENT, IoError,
                  owner << ": cannot remove the old metadata file '" << m.resolved
                        << "': " << std::strerror(errno));
  }
}

}  // namespace detail

void install_cleanup_handlers() {
  if (detail::g_handlers_installed.exchange(true)) return;
  for (int sig : detail::kCleanupSignals) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    // An ignored signal stays ignored (nohup, background jobs of non-interactive shells).
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = detail::cleanup_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int other : detail::kCleanupSignals) sigaddset(&sa.sa_mask, other);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace dmlrt::io
