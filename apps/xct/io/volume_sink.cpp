// Finished slices to the outputs, round by round.
#include "apps/xct/io/volume_sink.hpp"

#include <algorithm>

#include "apps/xct/geometry/phantom.hpp"
#include "core/error.hpp"
#include "io/tiff_writer.hpp"

namespace tessel::xct {

VolumeSink::VolumeSink(VolumeSinkSetup setup) : s_(std::move(setup)) {
    if (!s_.png_dir.empty()) {
        for (size_type s : s_.png_slices) {
            if (s < s_.first_slice || s >= s_.first_slice + s_.slices)
                TESSEL_INVALID_INPUT("png-slices", 0, "slice " + std::to_string(s) + " is not reconstructed");
            previews_.push_back(s - s_.first_slice);
        }
        if (previews_.empty()) previews_.push_back(s_.slices / 2);
    }
    if (!s_.output.empty() && !s_.output_in_store) file_.emplace(s_.output, s_.slices, s_.n);
    if (s_.keep_volume) volume_.reserve(static_cast<std::size_t>(s_.slices * s_.n * s_.n));
}

void VolumeSink::create_store() {
    if (s_.store.empty()) return;
    SliceStore where = s_.store;
    where.run = FinishedSlices::new_run_id();
    store_.emplace(FinishedSlices::create(where, s_.slices, s_.n));
}

void VolumeSink::start(size_type needed, const SliceStore* recorded) {
    if (needed == 0 || recorded == nullptr) return create_store();  // nothing finished: a new store
    FinishedSlices old = FinishedSlices::open(*recorded, s_.slices, s_.n, needed);
    if (recorded->path == s_.store.path && recorded->dataset == s_.store.dataset) {
        // This run's own store: continued in place; the other outputs get its slices again.
        store_.emplace(std::move(old));
        for (size_type s = 0; s < needed; ++s) {
            const std::vector<float> image = store_->read(s, 1);
            write_outputs(s, 1, image.data());
        }
        return;
    }
    // Another store (the killed run had another --output, or none): copied, one slice at a time
    // so that a resumed run holds no more than a fresh one.
    create_store();
    for (size_type s = 0; s < needed; ++s) {
        const std::vector<float> image = old.read(s, 1);
        add(s, 1, image.data());
    }
}

void VolumeSink::add(size_type first, size_type count, const float* images) {
    write_outputs(first, count, images);
    if (store_) store_->append(first, count, images);
}

void VolumeSink::write_outputs(size_type first, size_type count, const float* images) {
    const size_type pixels = s_.n * s_.n;
    if (file_) file_->write_slices(first, count, images);
    if (!s_.tiff_dir.empty())
        io::write_tiff_stack(s_.tiff_dir, std::vector<float>(images, images + count * pixels), count, s_.n,
                             s_.first_slice + first);
    for (size_type chosen : previews_)
        if (chosen >= first && chosen < first + count) {
            const float* image = images + (chosen - first) * pixels;
            write_previews(s_.png_dir, std::vector<float>(image, image + pixels), s_.n, {0}, s_.first_slice + chosen,
                           s_.colormap);
        }
    if (s_.phantom)
        for (size_type s = 0; s < count; ++s)
            psnr_.push_back(xct::psnr(std::span<const float>(images + s * pixels, pixels), s_.phantom(first + s)));
    if (s_.keep_volume) volume_.insert(volume_.end(), images, images + count * pixels);
}

void VolumeSink::finish(const VolumeAttributes& attributes, const std::vector<std::vector<double>>& histories) {
    if (file_) file_->finish(attributes, histories);
    if (s_.output_in_store && store_) {
        finish_partial_volume(std::move(*store_).release(), s_.output, s_.slices, attributes, histories);
        store_.reset();
    }
}

}  // namespace tessel::xct
