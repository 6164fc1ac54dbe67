#include "layers/recurrent.h"

namespace nw {

LayerCosts connectedBlocksCosts(std::int64_t inputs, std::int64_t outputs, int fromInput, int fromState)
{
    LayerCosts costs;
    costs.params = fromInput * (inputs * outputs + outputs) + fromState * (outputs * outputs + outputs);
    costs.bflops = 2.0 * double(fromInput * inputs * outputs + fromState * outputs * outputs) / 1e9;
    return costs;
}

} // namespace nw
