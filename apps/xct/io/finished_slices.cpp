// The store of finished slices: one chunked dataset, the count of slices written and the id
// of the run that created it, as attributes of the dataset.
#include "apps/xct/io/finished_slices.hpp"

#include <random>

#include "core/error.hpp"

namespace tessel::xct {

namespace {
constexpr const char* count_attribute = "tessel_finished_slices";
constexpr const char* run_attribute = "tessel_run_id";

std::string shape_text(size_type a, size_type b, size_type c) {
    return std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c);
}
}  // namespace

FinishedSlices::FinishedSlices(io::File file, SliceStore where, size_type slices, size_type n, size_type done)
    : file_(std::move(file)), where_(std::move(where)), slices_(slices), n_(n), done_(done) {}

std::string FinishedSlices::path_for(const std::string& checkpoint) { return checkpoint + ".slices.h5"; }

std::string FinishedSlices::partial_path_for(const std::string& output) { return output + ".partial"; }

std::int64_t FinishedSlices::new_run_id() {
    std::random_device device;
    std::uniform_int_distribution<std::int64_t> id(1, INT64_MAX);
    return id(device);
}

FinishedSlices FinishedSlices::create(const SliceStore& where, size_type slices, size_type n) {
    auto file = io::File::create_in_place(where.path);
    io::DatasetOptions chunked;
    if (slices > 0 && n > 0) chunked.chunk = {1, n, n};
    file.create_dataset<float>(where.dataset, {slices, n, n}, chunked);
    file.write_attribute(where.dataset, run_attribute, where.run);
    file.write_attribute(where.dataset, count_attribute, std::int64_t{0});
    file.flush();
    return FinishedSlices(std::move(file), where, slices, n, 0);
}

FinishedSlices FinishedSlices::open(const SliceStore& where, size_type slices, size_type n, size_type needed) {
    auto file = io::File::open_for_update(where.path);
    const auto shape = file.require(where.dataset, 3);
    const std::string place = where.path + ":" + where.dataset;
    if (shape[0] != slices || shape[1] != n || shape[2] != n)
        TESSEL_INVALID_INPUT(place, 0, "shape " + shape_text(shape[0], shape[1], shape[2]) + ", expected " +
                                           shape_text(slices, n, n));
    if (!file.has_attribute(where.dataset, run_attribute) ||
        file.read_attribute<std::int64_t>(where.dataset, run_attribute) != where.run)
        TESSEL_INVALID_INPUT(place, 0, "written by another run than the checkpoint's");
    const auto done = file.read_attribute<std::int64_t>(where.dataset, count_attribute);
    if (done < needed || done > slices)
        TESSEL_INVALID_INPUT(place, 0, "holds " + std::to_string(done) + " finished slices, the checkpoint needs " +
                                           std::to_string(needed));
    return FinishedSlices(std::move(file), where, slices, n, done);
}

void FinishedSlices::append(size_type first, size_type count, const float* images) {
    TESSEL_ENSURE_DIMS(first >= 0 && count >= 0 && first + count <= slices_,
                       "finished slices: [" + std::to_string(first) + ", " + std::to_string(first + count) +
                           ") outside " + std::to_string(slices_));
    if (count > 0 && n_ > 0) {
        io::Hyperslab slab;
        slab.offset = {first, 0, 0};
        slab.count = {count, n_, n_};
        file_.write_slab(where_.dataset, slab, images);
    }
    done_ = first + count;
    file_.write_attribute(where_.dataset, count_attribute, static_cast<std::int64_t>(done_));
    file_.flush();
}

std::vector<float> FinishedSlices::read(size_type first, size_type count) const {
    io::Hyperslab slab;
    slab.offset = {first, 0, 0};
    slab.count = {count, n_, n_};
    return file_.read_slab<float>(where_.dataset, slab);
}

io::File FinishedSlices::release() && {
    file_.remove_attribute(where_.dataset, count_attribute);
    file_.remove_attribute(where_.dataset, run_attribute);
    return std::move(file_);
}

}  // namespace tessel::xct
