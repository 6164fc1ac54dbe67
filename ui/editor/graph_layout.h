#pragma once
// Layered layout of a network graph with Graphviz's dot (libgvc): one box per layer, edges for the
// sequential flow and for route/shortcut/sam/scale_channels sources, splines routed around boxes.
#include "graph/network_spec.h"

#include <QPainterPath>
#include <QRectF>
#include <vector>

namespace nw::ui {

struct LaidOutNode {
    int layer;
    QRectF box; // scene coordinates, y down
};

struct LaidOutEdge {
    int from, to; // layer indices; from = -1 is the network input
    QPainterPath path;
};

struct GraphLayout {
    std::vector<LaidOutNode> nodes;
    std::vector<LaidOutEdge> edges;
    QRectF bounds;
};

// The edges of a network: (source, target) pairs; a layer reads its previous layer unless it is a
// [route] (which reads only its `layers=`).
std::vector<std::pair<int, int>> networkEdges(const NetworkSpec& spec);

GraphLayout layoutNetwork(const NetworkSpec& spec, QSizeF nodeSize);

} // namespace nw::ui
