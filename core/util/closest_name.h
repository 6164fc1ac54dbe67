#pragma once
// "Did you mean …?" for a mistyped name: a cfg key, an activation, a layer type, a CLI command.
#include <string>
#include <string_view>
#include <vector>

namespace nw {

// Levenshtein distance (insertions, deletions and substitutions of one character each).
std::size_t editDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, when it is at most two edits away and nearer than half the word's
// length (so "tx" suggests nothing); empty otherwise. The first of equals wins.
std::string closestName(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean X?)" for closestName's answer, or "" when there is none.
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace nw
