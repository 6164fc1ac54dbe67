#include "backend/cuda/gpu_host_head.h"

#include "backend/cuda/gpu_exec.h"

namespace nw {

void GpuHostHead::forward(GpuForwardArgs& args, const Shape& shape,
                          const std::function<void(ForwardArgs&)>& cpuForward, std::vector<float>& delta)
{
    input_.reset(shape, args.batch);
    output_.reset(shape, args.batch);
    args.gpu.copyToHost(args.input, input_.span());
    ExecContext inference;
    ForwardArgs host{input_, {}, output_, args.training ? *args.training : inference};
    delta.clear();
    delta_.clear();
    cpuForward(host);
    args.gpu.copyToDevice(output_.span(), args.output);
    if (!delta.empty())
        delta_.upload(args.gpu, delta);
}

} // namespace nw
