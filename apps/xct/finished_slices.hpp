// The finished slices of a checkpointed run, appended round by round to a store next to the
// checkpoint (CHECKPOINT.slices.h5), so that a resumed run finds them without any rank holding
// the whole volume.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::xct {

class FinishedSlices {
public:
    /// "run.ckpt.h5" -> "run.ckpt.h5.slices.h5".
    static std::string path_for(const std::string& checkpoint);
    /// A new, empty store for `slices` slices of n x n (replacing an old one). Throws
    /// InvalidInput (cannot write), Hdf5Error.
    static FinishedSlices create(const std::string& path, size_type slices, size_type n);
    /// The store of a run being resumed: it must hold `slices` x n x n and at least `needed`
    /// finished slices. Throws InvalidInput "f.slices.h5: cannot open: no such file", "f.slices.h5:
    /// holds 2 finished slices, the checkpoint needs 4", "...: shape 3 x 8 x 8, expected 4 x 8 x 8".
    static FinishedSlices open(const std::string& path, size_type slices, size_type n, size_type needed);

    size_type done() const { return done_; }
    /// Slices [first, first + count) written and flushed; `done` becomes first + count.
    void append(size_type first, size_type count, const float* images);
    /// Slices [first, first + count), n x n each.
    std::vector<float> read(size_type first, size_type count) const;

private:
    FinishedSlices(io::File file, size_type slices, size_type n, size_type done);
    io::File file_;
    size_type slices_, n_, done_;
};

}  // namespace tessel::xct
