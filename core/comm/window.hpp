// An owned MPI window over memory MPI allocates (MPI_Win_allocate), for one-sided transfers.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>

#include "core/comm/mpi_check.hpp"
#include "core/comm/mpi_types.hpp"

namespace tessel::comm {

/// `count` elements of T exposed to every rank of `comm` (displacement unit sizeof(T)).
/// Construction and destruction are collective. Move-only.
template <typename T>
class Window {
public:
    Window() = default;
    /// Throws MpiError.
    Window(MPI_Comm comm, size_type count) : count_(count) {
        TESSEL_ENSURE_DIMS(count >= 0, "window: negative size");
        TESSEL_MPI_CHECK(MPI_Win_allocate(static_cast<MPI_Aint>(count * sizeof(T)), sizeof(T),
                                          MPI_INFO_NULL, comm, &base_, &win_));
    }
    ~Window() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
    }
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;
    Window(Window&& other) noexcept { swap(other); }
    Window& operator=(Window&& other) noexcept {
        Window dropped;
        dropped.swap(other);
        swap(dropped);
        return *this;
    }

    T* data() const { return base_; }
    size_type size() const { return count_; }
    MPI_Win get() const { return win_; }

private:
    void swap(Window& other) noexcept {
        std::swap(win_, other.win_);
        std::swap(base_, other.base_);
        std::swap(count_, other.count_);
    }

    MPI_Win win_ = MPI_WIN_NULL;
    T* base_ = nullptr;
    size_type count_ = 0;
};

/// MPI_Win_lock_all on construction, MPI_Win_unlock_all on destruction: one passive-target
/// access epoch to every rank.
class LockAll {
public:
    explicit LockAll(MPI_Win win) : win_(win) { TESSEL_MPI_CHECK(MPI_Win_lock_all(0, win_)); }
    ~LockAll() { MPI_Win_unlock_all(win_); }
    LockAll(const LockAll&) = delete;
    LockAll& operator=(const LockAll&) = delete;

private:
    MPI_Win win_;
};

}  // namespace tessel::comm
