// The storage of a sparse format's bulk (tiled ELL's index and values): either its own
// huge-page array (LargeArray), or a read-only view of memory someone else keeps alive, such as
// a mapped operator-cache file, so that a stored operator is used in place instead of copied
// into fresh pages (on virtual machines the first touch of fresh memory can cost more than
// the copy itself).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

#include "core/aligned_allocator.hpp"

namespace tessel {

template <typename T>
class SlotArray {
public:
    using value_type = T;
    using size_type = std::size_t;

    SlotArray() = default;
    explicit SlotArray(size_type n) { resize(n); }
    SlotArray(LargeArray<T>&& own) : own_(std::move(own)) {}
    /// A view of `n` elements at `data`, valid while `keeper` lives; writes copy it first.
    static SlotArray view(const T* data, size_type n, std::shared_ptr<const void> keeper) {
        SlotArray a;
        a.view_ = data;
        a.view_size_ = n;
        a.keeper_ = std::move(keeper);
        return a;
    }

    SlotArray(const SlotArray& o) : own_(o.begin(), o.end()) {}
    SlotArray& operator=(const SlotArray& o) {
        if (this != &o) *this = SlotArray(o);
        return *this;
    }
    SlotArray(SlotArray&&) noexcept = default;
    SlotArray& operator=(SlotArray&&) noexcept = default;

    bool is_view() const { return keeper_ != nullptr; }
    size_type size() const { return is_view() ? view_size_ : own_.size(); }
    bool empty() const { return size() == 0; }
    const T* data() const { return is_view() ? view_ : own_.data(); }
    T* data() { return own().data(); }
    const T& operator[](size_type i) const { return data()[i]; }
    T& operator[](size_type i) { return own()[i]; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size(); }
    T* begin() { return data(); }
    T* end() { return data() + size(); }

    /// New elements are unwritten (LargeArray): the caller writes every one.
    void resize(size_type n) { own().resize(n); }
    void resize(size_type n, const T& value) { own().resize(n, value); }
    /// Frees the storage (or lets go of the view).
    void release() { *this = SlotArray(); }

    friend bool operator==(const SlotArray& a, const SlotArray& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    // The owned array; a view becomes one (a copy) on the first write. Writers call this per
    // element: the test stays inline and the copy is out of line.
    LargeArray<T>& own() {
        if (is_view()) [[unlikely]]
            detach();
        return own_;
    }
    [[gnu::noinline]] void detach() {
        own_.assign(view_, view_ + view_size_);
        view_ = nullptr;
        view_size_ = 0;
        keeper_.reset();
    }

    LargeArray<T> own_;
    const T* view_ = nullptr;
    size_type view_size_ = 0;
    std::shared_ptr<const void> keeper_;
};

}  // namespace tessel
