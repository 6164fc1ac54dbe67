#pragma once
// Maps cfg section names (long names and Darknet's short aliases) to layer types.
#include "layers/layer_config.h"

#include <string>
#include <string_view>
#include <vector>

namespace nw {

struct LayerType {
    std::string name;                 // long section name, used everywhere as the type name
    std::vector<std::string> aliases; // other accepted section names ("conv")
    std::string category;             // "convolution", "pooling", "routing", "head", ... (for palettes)
    LayerParseFn parse = nullptr;
};

class LayerRegistry {
public:
    void add(LayerType type);
    // By long name or alias, case-sensitive as in Darknet; nullptr when unknown.
    const LayerType* find(std::string_view sectionName) const;
    const std::vector<LayerType>& types() const { return types_; }
    // "convolutional, deconvolutional, ..." for error messages.
    std::string knownNames() const;

    // The registry with every built-in layer type.
    static const LayerRegistry& builtin();

private:
    std::vector<LayerType> types_;
};

void registerBuiltinLayers(LayerRegistry& registry);

} // namespace nw
