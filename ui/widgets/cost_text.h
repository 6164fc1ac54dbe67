#pragma once
// A layer's cost as the studio writes it: BFLOPs with Darknet's three decimals, and a small layer's
// with two significant digits (the default network's first convolution read "0.000 BFLOPs", as if it
// cost nothing).
#include <QLocale>
#include <QString>

namespace nw::ui {

inline QString bflopsText(double bflops)
{
    return bflops > 0 && bflops < 0.0005 ? QLocale().toString(bflops, 'g', 2)
                                         : QLocale().toString(bflops, 'f', 3);
}

} // namespace nw::ui
