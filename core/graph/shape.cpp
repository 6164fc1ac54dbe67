#include "graph/shape.h"

namespace nw {

std::string Shape::text() const
{
    if (w == 0 && h == 0 && c == 0)
        return std::to_string(size);
    return std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c);
}

} // namespace nw
