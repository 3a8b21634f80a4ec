#include "engine/storage/FileStore.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/core/Error.h"

namespace blobbench::storage {
namespace {

std::string systemWords(int error) {
    return error == ENOSPC ? std::string("no space left on the device (disk full)") : std::string(std::strerror(error));
}

Error ioError(const std::string& what, const std::filesystem::path& path, int error) {
    return Error(ErrorKind::Io, "files: " + what + " " + path.string() + ": " + systemWords(error));
}

void hex2(char* out, unsigned value) {
    static constexpr char kDigits[] = "0123456789abcdef";
    out[0] = kDigits[(value >> 4) & 0xf];
    out[1] = kDigits[value & 0xf];
}

}  // namespace

std::uint64_t allocatedBytes(const std::filesystem::path& file) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
        throw ioError("cannot stat", file, errno);
    }
    return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

Footprint footprintOf(const std::filesystem::path& directory) {
    Footprint f;
    std::error_code ec;
    f.directoryAllocated += allocatedBytes(directory);
    for (std::filesystem::recursive_directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) {
            throw ioError("cannot stat", it->path(), errno);
        }
        const auto allocated = static_cast<std::uint64_t>(st.st_blocks) * 512;
        if (S_ISDIR(st.st_mode)) {
            f.directoryAllocated += allocated;
        } else {
            ++f.files;
            f.fileBytes += static_cast<std::uint64_t>(st.st_size);
            f.fileAllocated += allocated;
        }
    }
    if (ec) {
        throw Error(ErrorKind::Io, "files: cannot list " + directory.string() + ": " + ec.message());
    }
    return f;
}

FileStore::FileStore(FileStoreOptions options) : m_options(std::move(options)) {
    if (m_options.directory.empty()) {
        throw Error(ErrorKind::Usage, "files: name a directory");
    }
    std::error_code ec;
    std::filesystem::create_directories(m_options.directory, ec);
    if (!std::filesystem::is_directory(m_options.directory)) {
        throw Error(ErrorKind::Io, "files: " + m_options.directory.string() + " is not a directory" +
                                       (ec ? " (" + ec.message() + ")" : std::string()));
    }
}

std::filesystem::path FileStore::pathOf(std::uint64_t key) const {
    const std::string name = std::to_string(key);
    if (m_options.layout == FileLayout::Flat) {
        return m_options.directory / name;
    }
    char level[6] = {0, 0, '/', 0, 0, 0};
    hex2(level, static_cast<unsigned>((key >> 16) & 0xff));
    hex2(level + 3, static_cast<unsigned>((key >> 8) & 0xff));
    return m_options.directory / level / name;
}

void FileStore::write(std::uint64_t key, std::string_view bytes) {
    const std::filesystem::path path = pathOf(key);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT && m_options.layout == FileLayout::Tree) {
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        throw ioError("cannot create", path, errno);
    }
    writeTo(path, fd, bytes, false);
}

void FileStore::overwrite(std::uint64_t key, std::string_view bytes) {
    const std::filesystem::path path = pathOf(key);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            throw Error(ErrorKind::Data,
                        "files: key " + std::to_string(key) + " does not exist (" + path.string() + ")");
        }
        throw ioError("cannot open", path, errno);
    }
    writeTo(path, fd, bytes, true);
}

void FileStore::writeTo(const std::filesystem::path& path, int fd, std::string_view bytes, bool truncateAfter) {
    const char* p = bytes.data();
    std::size_t left = bytes.size();
    int error = 0;
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            error = errno;
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (error == 0 && truncateAfter && ::ftruncate(fd, static_cast<off_t>(bytes.size())) != 0) {
        error = errno;
    }
    if (error == 0 && m_options.fsync && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(path.c_str());
        throw ioError("cannot write", path, error);
    }
}

int FileStore::openForRead(std::uint64_t key, const std::filesystem::path& path, std::size_t& size) const {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            throw Error(ErrorKind::Data,
                        "files: key " + std::to_string(key) + " does not exist (" + path.string() + ")");
        }
        throw ioError("cannot open", path, errno);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        throw ioError("cannot stat", path, error);
    }
    size = static_cast<std::size_t>(st.st_size);
    return fd;
}

std::size_t FileStore::readAll(const std::filesystem::path& path, int fd, char* into, std::size_t size) {
    std::size_t have = 0;  // one read of the whole file, no EOF probe
    while (have < size) {
        const ssize_t n = ::read(fd, into + have, size - have);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            const int error = errno;
            ::close(fd);
            throw ioError("cannot read", path, error);
        }
        if (n == 0) {
            break;
        }
        have += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return have;
}

void FileStore::read(std::uint64_t key, std::string& out) const {
    const std::filesystem::path path = pathOf(key);
    std::size_t size = 0;
    const int fd = openForRead(key, path, size);
    out.resize(size);
    out.resize(readAll(path, fd, out.data(), size));
}

std::string_view FileStore::readInto(std::uint64_t key, std::vector<char>& buffer) const {
    const std::filesystem::path path = pathOf(key);
    std::size_t size = 0;
    const int fd = openForRead(key, path, size);
    if (buffer.size() < size) {
        buffer.resize(size);
    }
    return {buffer.data(), readAll(path, fd, buffer.data(), size)};
}

bool FileStore::exists(std::uint64_t key) const {
    return ::access(pathOf(key).c_str(), F_OK) == 0;
}

}  // namespace blobbench::storage
