#pragma once
// A layer's cost as the studio writes it: BFLOPs with Darknet's three decimals, and a small layer's
// to two significant digits (the default network's first convolution read "0.000 BFLOPs", as if it
// cost nothing).
#include <QLocale>
#include <QString>
#include <algorithm>
#include <cmath>

namespace nw::ui {

inline QString bflopsText(double bflops)
{
    // (0.00045, 0.000025: decimals, not "2.5e-05", so the column still reads as one kind of number)
    const int decimals =
        bflops > 0 && bflops < 0.0005 ? std::min(9, 1 - int(std::floor(std::log10(bflops)))) : 3;
    return QLocale().toString(bflops, 'f', decimals);
}

} // namespace nw::ui
