// Step 4 of --solver fbp, instead of the operator's build: every rank a batch rank (no data
// ranks: nothing is split), natural order (the direct backprojection reads rays a·num_rho + c),
// and a matrix-free A for what still projects (the phantom's sinograms).
#include "apps/xct/driver/run_context.hpp"
#include "apps/xct/driver/steps.hpp"
#include "apps/xct/operator/traced_projector.hpp"

namespace tessel::xct {

template <typename V>
void prepare_direct_fbp(RunContext<V>& c) {
    const Geometry& g = c.g();
    require_backend(c.o.projector.backend);  // a missing GPU is found before the first round
    c.layout = std::make_unique<ParallelLayout>(make_parallel_layout(c.world, 1, c.o.topology));
    {
        auto scope = c.times.scope("reorder");
        c.ordering = make_ordering(g, DomainOrder::natural, c.o.tile);
    }
    c.pixel_offsets = {0, g.num_pixels()};
    c.ray_offsets = {0, g.num_rays()};
    c.op = std::make_unique<TracedProjector<V>>(g);
    if (c.talk)
        c.log << "operator: none built; FBP backprojects the filtered sinograms directly (pixel-driven, on "
              << to_string(c.o.projector.backend) << ", " << c.k() << " slice(s) per pass)\n";
}

template void prepare_direct_fbp<float>(RunContext<float>&);
template void prepare_direct_fbp<double>(RunContext<double>&);

}  // namespace tessel::xct
