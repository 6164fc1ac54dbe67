#pragma once
// A detection head run on the host during a GPU pass, as Darknet's GPU path runs its heads: the input
// down, the layer's own CPU forward (and its loss while training), the output and the loss deltas up.
// A head's values are few; the CPU code stays the one definition of its maths.
#include "backend/cuda/gpu_loss_delta.h"
#include "runtime/layer_runtime.h"
#include "runtime/tensor.h"

#include <functional>
#include <vector>

namespace nw {

class GpuHostHead {
public:
    // `cpuForward` runs the layer's CPU forward on host tensors of `shape` (one batch item), leaving its
    // loss deltas in `delta` while training (cleared first; empty: none).
    void forward(GpuForwardArgs& args, const Shape& shape,
                 const std::function<void(ForwardArgs&)>& cpuForward, std::vector<float>& delta);
    // passLossDelta's rule: the head's deltas plus any a later layer added go to the layer before.
    void backward(GpuBackwardArgs& args) const { delta_.passBack(args); }

private:
    Tensor input_, output_;
    GpuLossDelta delta_;
};

} // namespace nw
