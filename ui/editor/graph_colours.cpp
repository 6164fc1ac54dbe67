#include "editor/graph_colours.h"

#include "layers/registry.h"

#include <QPalette>

namespace nw::ui {

namespace {

GraphColours& current()
{
    static GraphColours colours = GraphColours::forPalette(QPalette());
    return colours;
}

} // namespace

GraphColours GraphColours::forPalette(const QPalette& palette)
{
    GraphColours c;
    c.dark = palette.color(QPalette::Base).lightness() < 128;
    if (c.dark) {
        c.canvas = QColor(36, 37, 42);
        c.miniMap = QColor(46, 47, 54, 235);
        c.hint = QColor(150, 150, 155);
        c.cardText = QColor(232, 232, 238);
        c.cardDetail = QColor(190, 192, 202);
        c.plainBorder = QColor(120, 122, 135);
        c.edge = QColor(150, 152, 172);
        c.portRing = QColor(170, 172, 190);
        c.portIn = QColor(40, 41, 46);
        c.portOut = QColor(120, 150, 215);
        c.selected = QColor(95, 155, 255);
        c.error = QColor(235, 85, 85);
        c.warning = QColor(240, 170, 60);
    } else {
        c.canvas = QColor(250, 250, 252);
        c.miniMap = QColor(245, 245, 250, 235);
        c.hint = QColor(120, 120, 120);
        c.cardText = Qt::black;
        c.cardDetail = QColor(60, 60, 60);
        c.plainBorder = Qt::gray;
        c.edge = QColor(110, 110, 130);
        c.portRing = QColor(90, 90, 110);
        c.portIn = Qt::white;
        c.portOut = QColor(90, 120, 190);
        c.selected = QColor(30, 90, 200);
        c.error = QColor(200, 30, 30);
        c.warning = QColor(230, 150, 20);
    }
    return c;
}

QColor GraphColours::category(const std::string& type) const
{
    const LayerType* known = LayerRegistry::builtin().find(type);
    const std::string group = known ? known->category : "";
    if (group == "convolution")
        return dark ? QColor(44, 62, 90) : QColor(225, 236, 250);
    if (group == "pooling")
        return dark ? QColor(44, 74, 52) : QColor(230, 245, 230);
    if (group == "routing" || group == "attention")
        return dark ? QColor(84, 70, 44) : QColor(250, 240, 220);
    if (group == "head" || group == "output")
        return dark ? QColor(80, 50, 74) : QColor(245, 228, 240);
    return dark ? QColor(60, 61, 66) : QColor(238, 238, 238);
}

const GraphColours& graphColours()
{
    return current();
}

void setGraphColours(const QPalette& palette)
{
    current() = GraphColours::forPalette(palette);
}

} // namespace nw::ui
