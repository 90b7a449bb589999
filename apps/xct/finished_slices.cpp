// The store of finished slices: one chunked dataset and a count of the slices written.
#include "apps/xct/finished_slices.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace tessel::xct {

namespace {
constexpr const char* dataset = "/slices";
constexpr const char* count_attribute = "done";

std::string shape_text(size_type a, size_type b, size_type c) {
    return std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c);
}
}  // namespace

FinishedSlices::FinishedSlices(io::File file, size_type slices, size_type n, size_type done)
    : file_(std::move(file)), slices_(slices), n_(n), done_(done) {}

std::string FinishedSlices::path_for(const std::string& checkpoint) { return checkpoint + ".slices.h5"; }

FinishedSlices FinishedSlices::create(const std::string& path, size_type slices, size_type n) {
    auto file = io::File::create_in_place(path);
    io::DatasetOptions chunked;
    chunked.chunk = {1, n, n};
    file.create_dataset<float>(dataset, {slices, n, n}, chunked);
    file.write_attribute(dataset, count_attribute, std::int64_t{0});
    file.flush();
    return FinishedSlices(std::move(file), slices, n, 0);
}

FinishedSlices FinishedSlices::open(const std::string& path, size_type slices, size_type n, size_type needed) {
    auto file = io::File::open_for_update(path);
    const auto shape = file.require(dataset, 3);
    if (shape[0] != slices || shape[1] != n || shape[2] != n)
        TESSEL_INVALID_INPUT(path, 0, "shape " + shape_text(shape[0], shape[1], shape[2]) + ", expected " +
                                          shape_text(slices, n, n));
    const auto done = file.read_attribute<std::int64_t>(dataset, count_attribute);
    if (done < needed || done > slices)
        TESSEL_INVALID_INPUT(path, 0, "holds " + std::to_string(done) + " finished slices, the checkpoint needs " +
                                          std::to_string(needed));
    return FinishedSlices(std::move(file), slices, n, done);
}

void FinishedSlices::append(size_type first, size_type count, const float* images) {
    TESSEL_ENSURE_DIMS(first >= 0 && count >= 0 && first + count <= slices_,
                       "finished slices: [" + std::to_string(first) + ", " + std::to_string(first + count) +
                           ") outside " + std::to_string(slices_));
    if (count > 0) {
        io::Hyperslab slab;
        slab.offset = {first, 0, 0};
        slab.count = {count, n_, n_};
        file_.write_slab(dataset, slab, images);
    }
    done_ = first + count;
    file_.write_attribute(dataset, count_attribute, static_cast<std::int64_t>(done_));
    file_.flush();
}

std::vector<float> FinishedSlices::read(size_type first, size_type count) const {
    io::Hyperslab slab;
    slab.offset = {first, 0, 0};
    slab.count = {count, n_, n_};
    return file_.read_slab<float>(dataset, slab);
}

}  // namespace tessel::xct
