#pragma once
// A layer's cost as the studio writes it: BFLOPs with Darknet's three decimals, and a small layer's
// to two significant digits (the default network's first convolution read "0.000 BFLOPs", as if it
// cost nothing).
#include <QLocale>
#include <QString>
#include <cmath>

namespace nw::ui {

// The decimals for `bflops`: 3, or enough for two significant digits below 0.0005 (0.00045,
// 0.000025: decimals, not "2.5e-05", so the column still reads as one kind of number).
inline int bflopsDecimals(double bflops)
{
    return bflops > 0 && bflops < 0.0005 ? 1 - int(std::floor(std::log10(bflops))) : 3;
}

// In the user's locale ("?" for a value that is not a number); QString::number(v, 'f',
// bflopsDecimals(v)) for copied text.
inline QString bflopsText(double bflops)
{
    return std::isfinite(bflops) ? QLocale().toString(bflops, 'f', bflopsDecimals(bflops))
                                 : QStringLiteral("?");
}

} // namespace nw::ui
