// Shared memory of a simulated block, seen through SharedPtr: every access is checked against
// the block's shared arrays (bounds) and recorded for the race check (shared_memory.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessel::sim {

enum class Access : std::uint8_t { read, write, atomic_read, atomic_write };

/// Checks one access of `bytes` bytes at `address` by the running thread: inside one of the
/// block's shared arrays, and no race with another thread since the last barrier. Throws the
/// simulator's fault (the launch then fails) when either check fails.
void check_shared_access(const void* address, std::size_t bytes, Access access);

/// The block's dynamic shared memory (the size given at launch).
void* dynamic_shared_memory();
/// The block's `index`-th static __shared__ array of `bytes` bytes (the same memory for every
/// thread of the block: index counts the declarations a thread has passed).
void* static_shared_memory(std::size_t bytes, std::size_t alignment);

template <typename T>
class SharedPtr;

/// One element of shared memory: reads and writes go through the checks.
template <typename T>
class SharedRef {
public:
    explicit SharedRef(T* p) : p_(p) {}
    operator T() const {
        check_shared_access(p_, sizeof(T), Access::read);
        return *p_;
    }
    SharedRef& operator=(const T& value) {
        check_shared_access(p_, sizeof(T), Access::write);
        *p_ = value;
        return *this;
    }
    SharedRef& operator=(const SharedRef& other) { return *this = static_cast<T>(other); }
    SharedRef& operator+=(const T& value) { return *this = static_cast<T>(*this) + value; }
    SharedRef& operator-=(const T& value) { return *this = static_cast<T>(*this) - value; }
    SharedRef& operator*=(const T& value) { return *this = static_cast<T>(*this) * value; }
    SharedPtr<T> operator&() const { return SharedPtr<T>(p_); }

private:
    T* p_;
};

/// A pointer into the block's shared memory.
template <typename T>
class SharedPtr {
public:
    SharedPtr() = default;
    SharedPtr(std::nullptr_t) {}
    explicit SharedPtr(T* p) : p_(p) {}
    SharedRef<T> operator*() const { return SharedRef<T>(p_); }
    SharedRef<T> operator[](std::ptrdiff_t i) const { return SharedRef<T>(p_ + i); }
    SharedPtr operator+(std::ptrdiff_t n) const { return SharedPtr(p_ + n); }
    SharedPtr operator-(std::ptrdiff_t n) const { return SharedPtr(p_ - n); }
    std::ptrdiff_t operator-(SharedPtr other) const { return p_ - other.p_; }
    SharedPtr& operator+=(std::ptrdiff_t n) {
        p_ += n;
        return *this;
    }
    SharedPtr& operator++() {
        ++p_;
        return *this;
    }
    bool operator==(const SharedPtr&) const = default;
    /// The raw address after a checked access of one element (atomics, volatile accesses).
    T* checked(Access access) const {
        check_shared_access(p_, sizeof(T), access);
        return p_;
    }
    T* raw() const { return p_; }

private:
    T* p_ = nullptr;
};

}  // namespace tessel::sim
