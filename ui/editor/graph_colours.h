#pragma once
// The graph's colours for a light or a dark desktop: the canvas, the cards by their type's category,
// text, edges, ports, the selection and problems. Under a dark palette the canvas was a bright block of
// light cards in a dark window; the graph view follows the palette as it changes.
#include <QColor>
#include <string>

class QPalette;

namespace nw::ui {

struct GraphColours {
    bool dark = false;
    QColor canvas, miniMap, hint;
    QColor cardText, cardDetail, plainBorder;
    QColor edge, portRing, portIn, portOut;
    QColor selected, error, warning;
    // A card's fill by its type's category in the layer registry (the palette's groups).
    QColor category(const std::string& type) const;

    static GraphColours forPalette(const QPalette& palette);
};

// The colours the graph's items paint with, as the graph view last set them from its palette.
const GraphColours& graphColours();
void setGraphColours(const QPalette& palette);

} // namespace nw::ui
