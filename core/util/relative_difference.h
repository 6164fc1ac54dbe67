#pragma once
// How far one computation's output is from a reference's, the rule `check-device` judges the GPU by.
#include <span>

namespace nw {

// The largest |value − reference| / max(floor, |reference|) over two arrays. Infinite where the
// comparison cannot vouch for the values: arrays of different lengths, or a NaN or infinity on either
// side (on the reference's side too, even the same NaN or ∞ on both: a reference that overflowed
// checks nothing after it).
double largestRelativeDifference(std::span<const float> values, std::span<const float> reference,
                                 double floor = 1.0);

// Whether every value is finite.
bool allFinite(std::span<const float> values);

} // namespace nw
