// fuzz_weights: the input bytes are a .weights file (through a scratch file), loaded with Net::loadWeights
// into a small net built once (conv with batch_normalize, maxpool, connected, softmax: 319 floats after
// the header). A load must either refuse the file with a message or succeed; after a successful load
// the net runs a forward pass on the loaded (possibly NaN/huge) weights.
#include "graph/network_spec.h"
#include "runtime/net.h"
#include "temp_file.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr const char* kCfg = R"([net]
batch=1
width=8
height=8
channels=3

[convolutional]
batch_normalize=1
filters=4
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[connected]
output=3
activation=linear

[softmax]
)";

struct Fixture {
    nw_fuzz::TempFile file{"weights", ".weights"};
    std::unique_ptr<nw::Net> net;
    std::vector<float> input;

    Fixture()
    {
        const nw::NetworkSpec spec = nw::buildNetworkSpec(nw::cfg::Document::parse(kCfg, "fuzz-weights.cfg"));
        std::string error;
        net = spec.ok() ? nw::Net::create(spec, 1, error) : nullptr;
        if (!net) {
            std::fprintf(stderr, "fuzz_weights: the fixed net cannot be built: %s\n", error.c_str());
            std::abort();
        }
        input.resize(std::size_t(net->inputShape().size));
        for (std::size_t i = 0; i < input.size(); ++i)
            input[i] = float(i % 17) / 16.0f;
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static Fixture fixture;
    fixture.file.write(data, size);
    std::vector<std::string> warnings;
    if (!fixture.net->loadWeights(fixture.file.path(), &warnings))
        fixture.net->forward(fixture.input.data());
    return 0;
}
