// Finished slices to the outputs, round by round.
#include "apps/xct/volume_sink.hpp"

#include <algorithm>

#include "apps/xct/phantom.hpp"
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
    if (!s_.output.empty()) file_.emplace(s_.output, s_.slices, s_.n);
    if (s_.keep_volume) volume_.reserve(static_cast<std::size_t>(s_.slices * s_.n * s_.n));
}

void VolumeSink::resume(size_type needed) {
    if (needed == 0) return;  // stopped in the first round: nothing finished, a new store
    store_.emplace(FinishedSlices::open(s_.store, s_.slices, s_.n, needed));
    // One slice at a time: a resumed run holds no more than a fresh one.
    for (size_type s = 0; s < needed; ++s) {
        const std::vector<float> image = store_->read(s, 1);
        write_outputs(s, 1, image.data());
    }
}

void VolumeSink::add(size_type first, size_type count, const float* images) {
    write_outputs(first, count, images);
    if (s_.store.empty()) return;
    if (!store_) store_.emplace(FinishedSlices::create(s_.store, s_.slices, s_.n));
    store_->append(first, count, images);
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
}

}  // namespace tessel::xct
