// fuzz_cfg: the input bytes are .cfg text. cfg::Document::parse must keep every byte of a text it
// accepts (toText() gives the input back: the lossless round trip the editor relies on; binary input is
// refused with readFailed() and one error), then buildNetworkSpec turns the document into a network
// description (shapes, BFLOPs, diagnostics) without throwing or crashing.
#include "cfg/document.h"
#include "graph/network_spec.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const nw::cfg::Document document = nw::cfg::Document::parse(text, "fuzz.cfg");
    if (!document.readFailed() && document.toText() != text) {
        std::fprintf(stderr,
                     "fuzz_cfg: Document::parse(text).toText() != text (the round trip lost bytes)\n");
        std::abort();
    }
    const nw::NetworkSpec spec = nw::buildNetworkSpec(document, {});
    if (spec.layers.size() > document.sections().size()) {
        std::fprintf(stderr, "fuzz_cfg: %zu layers from %zu sections\n", spec.layers.size(),
                     document.sections().size());
        std::abort();
    }
    return 0;
}
