#pragma once

// The `files` baseline: one file per BLOB in a directory, named by its key, flat or in a two-level
// tree ((key >> 16) & 0xff, then (key >> 8) & 0xff, two hex digits each: at most 256 files a leaf). Writes are
// open/write/close, with fsync before close when asked; reads are open/read/close. Plain POSIX, no Qt.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace blobbench::storage {

enum class FileLayout { Flat, Tree };

struct FileStoreOptions {
    std::filesystem::path directory;
    FileLayout layout = FileLayout::Flat;
    bool fsync = false;
};

// What a directory tree occupies, counted like `du`: st_blocks * 512 of every file and directory.
struct Footprint {
    std::uint64_t files = 0;
    std::uint64_t fileBytes = 0;           // sum of st_size of regular files
    std::uint64_t fileAllocated = 0;       // sum of st_blocks * 512 of regular files
    std::uint64_t directoryAllocated = 0;  // the directories themselves (du counts them too)
    std::uint64_t allocated() const { return fileAllocated + directoryAllocated; }
};

Footprint footprintOf(const std::filesystem::path& directory);
// st_blocks * 512 of one file; Error(Io) when it cannot be stat'ed.
std::uint64_t allocatedBytes(const std::filesystem::path& file);

class FileStore {
public:
    // Creates the directory when missing; Error(Io) when it cannot or is not a directory.
    explicit FileStore(FileStoreOptions options);

    const FileStoreOptions& options() const { return m_options; }
    std::filesystem::path pathOf(std::uint64_t key) const;

    // Replaces the value. Error(Io) naming the file and the system's words (disk full, read-only, ...);
    // a file left short by a failed write is removed.
    void write(std::uint64_t key, std::string_view bytes);
    // Rewrites an existing file in place: open without O_TRUNC, write, ftruncate to the new length.
    // (ext4 flushes a file truncated to zero and rewritten when it is closed: auto_da_alloc.)
    // Error(Data) when the key does not exist.
    void overwrite(std::uint64_t key, std::string_view bytes);
    // Reads the value into `out` (capacity reused). Error(Data) when the key does not exist.
    void read(std::uint64_t key, std::string& out) const;
    // The same system calls (open, fstat, read, close) into `buffer`, grown when a value is larger and
    // never shrunk or zero-filled again; the view covers the value.
    std::string_view readInto(std::uint64_t key, std::vector<char>& buffer) const;
    bool exists(std::uint64_t key) const;

    Footprint footprint() const { return footprintOf(m_options.directory); }

private:
    void writeTo(const std::filesystem::path& path, int fd, std::string_view bytes, bool truncateAfter);
    // open + fstat; the descriptor and the size. Error(Data) when the key does not exist.
    int openForRead(std::uint64_t key, const std::filesystem::path& path, std::size_t& size) const;
    // Reads up to `size` bytes into `into`; closes fd; returns the bytes read.
    static std::size_t readAll(const std::filesystem::path& path, int fd, char* into, std::size_t size);
    FileStoreOptions m_options;
};

}  // namespace blobbench::storage
