#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace tessel::io {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        TESSEL_INVALID_INPUT(path, 0, std::string("cannot map: ") + std::strerror(err));
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size == 0) {  // mmap refuses length 0; an empty file is an empty mapping
        ::close(fd);
        return std::shared_ptr<const MappedFile>(new MappedFile(nullptr, 0));
    }
    // MAP_POPULATE: the page-cache pages are mapped in one go instead of a fault per few pages.
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    const int err = errno;
    ::close(fd);  // the mapping keeps the file
    if (p == MAP_FAILED) TESSEL_INVALID_INPUT(path, 0, std::string("cannot map: ") + std::strerror(err));
    return std::shared_ptr<const MappedFile>(new MappedFile(static_cast<const unsigned char*>(p), size));
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace tessel::io
