#pragma once
// A loss layer's deltas on a GPU training pass: computed on the host by the layer's CPU code (from the
// downloaded outputs, as Darknet's GPU path does for its heads) and kept on the device for the backward
// pass, which hands them to the layer before together with any delta a later layer added.
#include "backend/cuda/device_buffer.h"
#include "runtime/layer_runtime.h"

#include <span>

namespace nw {

class GpuLossDelta {
public:
    void clear() { present_ = false; }
    void upload(GpuExec& gpu, std::span<const float> delta);
    // inputDelta += loss delta + outputDelta. Without a loss delta: nothing, as passLossDelta does, or
    // (`outputDeltaAlone`, [cost]) only outputDelta.
    void passBack(GpuBackwardArgs& args, bool outputDeltaAlone = false) const;

private:
    DeviceBuffer delta_;
    bool present_ = false;
};

} // namespace nw
