// The SpMM kernels the benchmark times: tessel's (reference, cpu, cuda) and peer libraries,
// all behind one interface so that each is prepared, timed and checked the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dense.hpp"
#include "core/formats/csr.hpp"
#include "core/formats/tiled_ell.hpp"

namespace tessel::bench {

/// Column index type of every benchmarked matrix (the peers take 32-bit indices).
using Index = std::int32_t;

/// Who wrote a kernel: the oracle, tessel's optimised kernels, or a peer library.
enum class Family { reference, tessel, peer };
std::string to_string(Family family);

/// One SpMM implementation, C := A·B with row-major B (n x k) and C (m x k).
/// Life cycle: prepare(A) once per matrix (format conversion, not timed as a multiply),
/// then per K: bind(B, C), multiply() several times (timed), collect() (makes C hold the
/// last result), unbind().
template <typename V>
class Kernel {
public:
    virtual ~Kernel() = default;
    /// Short name used on the command line and in tables ("row-split", "eigen", ...).
    virtual std::string name() const = 0;
    virtual Family family() const = 0;
    /// True for kernels that run on a CUDA device (compared among themselves, not with cpu).
    virtual bool on_device() const { return false; }
    /// What the time includes beyond the multiply (for example host-device transfers).
    virtual std::string note() const { return ""; }
    /// Settings that ran (tile sizes, library method), for --verbose and the JSON.
    virtual std::string details() const { return ""; }
    /// Builds the kernel's own form of A.
    virtual void prepare(const Csr<V, Index>& a) = 0;
    /// Bytes of A as this kernel stores it (CSR bytes for kernels that read CSR).
    virtual double a_bytes() const = 0;
    virtual void bind(DenseView<const V> b, DenseView<V> c) {
        b_ = b;
        c_ = c;
    }
    virtual void multiply() = 0;
    virtual void collect() {}
    virtual void unbind() {}

protected:
    DenseView<const V> b_;
    DenseView<V> c_;
};

/// Bytes of a CSR matrix: nnz·(sizeof(V) + sizeof(I)) + (rows + 1)·8.
template <typename V>
double csr_bytes(const Csr<V, Index>& a) {
    return double(a.nnz()) * double(sizeof(V) + sizeof(Index)) + double(a.rows() + 1) * 8.0;
}

/// Bytes of a tiled ELL matrix as stored: values, 16-bit indices, maps and displacements.
template <typename V>
double tiled_ell_bytes(const TiledEll<V, Index>& t) {
    return double(t.values.size()) * sizeof(V) + double(t.index.size()) * 2.0 +
           double(t.map.size()) * sizeof(Index) +
           double(t.buffdispl.size() + t.mapdispl.size() + t.warpdispl.size()) * 8.0;
}

/// Options that shape the kernels.
struct KernelOptions {
    TiledEllConfig tiled_ell;
    int register_factor = 0;   // 0 = chosen from K
    int threads = 1;
};

/// Every kernel name this build knows, in table order (cuda ones only with a device).
std::vector<std::string> available_kernel_names();

/// Creates the kernel called `name` for value type V; nullptr when the name is unknown
/// or the kernel is not available in this build or on this machine.
template <typename V>
std::unique_ptr<Kernel<V>> make_kernel(const std::string& name, const KernelOptions& options);

}  // namespace tessel::bench
