// Writes that own only what they create: target checks (no folder, device, FIFO or socket is ever
// replaced), temporaries with short names that signal handlers can remove, and publication of a
// data file and its .mtd as one pair under a folder lock. See Note [Safe writes] in safe_write.cpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace dmlrt::io {

// Installs SIGINT, SIGTERM and SIGHUP handlers (each only where the signal is not ignored) that
// unlink the temporaries of writes in progress, restore the default disposition and re-raise the
// signal, so the process still dies of it. The library never installs handlers by itself; the
// dmlrt CLI calls this at start-up. Idempotent.
void install_cleanup_handlers();

namespace detail {

// One file name a write will publish (the data file or its .mtd), after the checks.
struct WriteTarget {
  std::string path;       // as given (messages)
  std::string resolved;   // what is replaced: `path`, or the regular file a symlink at `path` names
  std::string folder;     // the folder of `resolved` ("." when it has none)
  bool exists = false;    // `resolved` exists (and is a regular file)
  const char* role = "";  // what is written there ("a matrix file", "its metadata file"), or ""
                          // for a stale .mtd that is only removed (check_stale_mtd)
};

// Checks that `path` may be replaced by a new regular file: it is absent, a regular file, or a
// symlink to a regular file (written through: the link stays and names the new contents).
// Anything else (folder, device, FIFO, socket, symlink to one, dangling symlink, a name ending in
// '/') throws an IoError naming `owner` (the output as the plan names it), `path` and what it is.
// `role` says what would be written ("a matrix file", "its metadata file").
WriteTarget check_write_target(const std::string& owner, const std::string& path, const char* role);

// For a write without .mtd: checks that a stale `mtd_path` is absent or a regular file (not a
// symlink), which publish() then removes. Throws an IoError naming `owner` otherwise.
WriteTarget check_stale_mtd(const std::string& owner, const std::string& mtd_path);

// The temporary file name for a target named `file_name` (no folder): "." + 16 hex digits of a
// hash of the name + ".dmlrt-tmp-" + a tag of this host + "-" + pid + "-" + n. Under 80 bytes,
// whatever the length of `file_name`.
std::string temp_file_name(const std::string& file_name, long pid, uint64_t n);

// Removes, once per folder and process, the temporaries in `folder` that a dmlrt process of this
// host left behind when it was killed (its pid is gone). Other files are never touched.
void remove_stale_temporaries(const std::string& folder);

// A new file beside a target, created exclusively (O_EXCL) and registered with the signal
// handlers. Unlinked by the destructor unless published.
class TempFile {
 public:
  explicit TempFile(const WriteTarget& target);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();
  std::FILE* file() { return f_; }
  // Closes the stream; throws an IoError when a write failed.
  void close();
  // Renames the file onto target.resolved. The caller holds the FolderLock of the pair.
  void publish();

 private:
  WriteTarget target_;
  std::string name_;  // in target_.folder
  int dir_fd_ = -1;
  int slot_ = -1;  // in the signal registry, -1 = none
  std::FILE* f_ = nullptr;
  bool published_ = false;
};

// flock()s a set of folders in one global order (device, inode), exclusive for writers publishing
// a pair, shared for readers reading a file and its .mtd. Where a folder cannot be opened or its
// filesystem has no flock, that folder goes unlocked.
class FolderLock {
 public:
  FolderLock(const std::vector<std::string>& folders, bool exclusive);
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

 private:
  std::vector<int> fds_;
};

// The folder lock a reader of `path` and `path`.mtd takes (shared): the folders of both, with
// symlinks resolved as a writer resolves them.
std::vector<std::string> read_lock_folders(const std::string& path);

// Publishes a write under an exclusive lock of the folders of both names: re-checks both names,
// renames `data` onto data_target, then `meta` onto mtd_target when given, else removes the stale
// .mtd mtd_target (from check_stale_mtd) when it exists.
void publish_pair(const std::string& owner, TempFile& data, const WriteTarget& data_target,
                  TempFile* meta, const WriteTarget& mtd_target);

}  // namespace detail
}  // namespace dmlrt::io
