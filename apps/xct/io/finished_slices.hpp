// The finished slices of a checkpointed run, appended round by round to a file written in
// place and flushed after each round, so that a stopped or killed run keeps them and a
// resumed run finds them without any rank holding the whole volume. With --output the file is
// the volume's own partial file (OUTPUT.partial, /exchange/recon), renamed into place when the
// run ends; without, a store next to the checkpoint (CHECKPOINT.slices.h5, /slices).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/hdf5_file.hpp"

namespace tessel::xct {

/// Where a run keeps its finished slices: a file, its dataset, and the id of the run that
/// created it (the checkpoint records the id; a file of another run is not trusted).
struct SliceStore {
    std::string path;
    std::string dataset;
    std::int64_t run = 0;
    bool empty() const { return path.empty(); }
};

class FinishedSlices {
public:
    /// The dataset of the store next to the checkpoint.
    static constexpr const char* own_dataset = "/slices";
    /// "run.ckpt.h5" -> "run.ckpt.h5.slices.h5" (the store of a run without --output).
    static std::string path_for(const std::string& checkpoint);
    /// "out.h5" -> "out.h5.partial" (the volume of a checkpointed run until it finishes).
    static std::string partial_path_for(const std::string& output);
    /// A new id for a store (random, positive).
    static std::int64_t new_run_id();
    /// A new, empty store (replacing an old file) of `slices` x n x n float32, chunked per
    /// slice. Throws InvalidInput (cannot write), Hdf5Error.
    static FinishedSlices create(const SliceStore& where, size_type slices, size_type n);
    /// The store of a run being resumed: it must hold `slices` x n x n, have been created by
    /// run `where.run`, and hold at least `needed` finished slices. Throws InvalidInput
    /// "f.partial: cannot open: no such file", "f.partial:/exchange/recon: holds 2 finished
    /// slices, the checkpoint needs 4", "...: written by another run than the checkpoint's",
    /// "...: shape 3 x 8 x 8, expected 4 x 8 x 8".
    static FinishedSlices open(const SliceStore& where, size_type slices, size_type n, size_type needed);

    const SliceStore& where() const { return where_; }
    size_type done() const { return done_; }
    /// Slices [first, first + count) written and flushed; `done` becomes first + count.
    void append(size_type first, size_type count, const float* images);
    /// Slices [first, first + count), n x n each.
    std::vector<float> read(size_type first, size_type count) const;
    /// The file without the store's bookkeeping attributes, for finishing it as a volume.
    io::File release() &&;

private:
    FinishedSlices(io::File file, SliceStore where, size_type slices, size_type n, size_type done);
    io::File file_;
    SliceStore where_;
    size_type slices_, n_, done_;
};

}  // namespace tessel::xct
