#include "editor/graph_layout.h"

#include <clocale>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <locale.h>
#include <string>

namespace nw::ui {

std::vector<std::pair<int, int>> networkEdges(const NetworkSpec& spec)
{
    std::vector<std::pair<int, int>> edges;
    for (const LayerSpec& layer : spec.layers) {
        if (layer.type != "route" && layer.index > 0)
            edges.emplace_back(layer.index - 1, layer.index);
        for (int source : layer.sources)
            if (source != layer.index - 1 || layer.type == "route")
                edges.emplace_back(source, layer.index);
    }
    return edges;
}

namespace {

void set(void* object, const char* key, const std::string& value)
{
    agsafeset(object, const_cast<char*>(key), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

// Graphviz writes and reads its sizes with printf/strtod, and so does std::to_string: under a desktop
// locale with a decimal comma (de_DE, fr_FR…, which Qt makes the C locale) "2.64" was read as 2 and
// every card piled on the next. This thread formats numbers the C way while the layout runs.
class CNumbersOnThisThread {
public:
    CNumbersOnThisThread() : c_(newlocale(LC_NUMERIC_MASK, "C", locale_t(nullptr)))
    {
        if (c_)
            previous_ = uselocale(c_);
    }
    ~CNumbersOnThisThread()
    {
        if (c_) {
            uselocale(previous_);
            freelocale(c_);
        }
    }
    CNumbersOnThisThread(const CNumbersOnThisThread&) = delete;
    CNumbersOnThisThread& operator=(const CNumbersOnThisThread&) = delete;

private:
    locale_t c_;
    locale_t previous_ = LC_GLOBAL_LOCALE;
};

} // namespace

GraphLayout layoutNetwork(const NetworkSpec& spec, QSizeF nodeSize)
{
    GraphLayout result;
    if (spec.layers.empty())
        return result;
    const CNumbersOnThisThread cNumbers;
    GVC_t* gvc = gvContext();
    char name[] = "network";
    Agraph_t* graph = agopen(name, Agdirected, nullptr);
    set(graph, "rankdir", "TB");
    set(graph, "nodesep", "0.35");
    set(graph, "ranksep", "0.3");
    set(graph, "splines", "spline");
    std::vector<Agnode_t*> nodes;
    for (const LayerSpec& layer : spec.layers) {
        std::string id = std::to_string(layer.index);
        Agnode_t* node = agnode(graph, id.data(), 1);
        set(node, "shape", "box");
        set(node, "fixedsize", "true");
        set(node, "width", std::to_string(nodeSize.width() / 72.0));
        set(node, "height", std::to_string(nodeSize.height() / 72.0));
        set(node, "label", "");
        nodes.push_back(node);
    }
    const auto edges = networkEdges(spec);
    std::vector<Agedge_t*> gvEdges;
    for (const auto& [from, to] : edges)
        gvEdges.push_back(agedge(graph, nodes[std::size_t(from)], nodes[std::size_t(to)], nullptr, 1));
    gvLayout(gvc, graph, "dot");

    const boxf bb = GD_bb(graph);
    auto toScene = [&](pointf p) { return QPointF(p.x, bb.UR.y - p.y); }; // Graphviz's y points up
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const QPointF centre = toScene(ND_coord(nodes[i]));
        result.nodes.push_back(
            {int(i), QRectF(centre.x() - nodeSize.width() / 2, centre.y() - nodeSize.height() / 2,
                            nodeSize.width(), nodeSize.height())});
    }
    for (std::size_t i = 0; i < gvEdges.size(); ++i) {
        LaidOutEdge edge{edges[i].first, edges[i].second, {}};
        const splines* spline = ED_spl(gvEdges[i]);
        if (spline && spline->size > 0) {
            const bezier& b = spline->list[0];
            edge.path.moveTo(toScene(b.list[0]));
            for (int p = 1; p + 2 < b.size; p += 3)
                edge.path.cubicTo(toScene(b.list[p]), toScene(b.list[p + 1]), toScene(b.list[p + 2]));
            if (b.eflag)
                edge.path.lineTo(toScene(b.ep));
        }
        result.edges.push_back(std::move(edge));
    }
    result.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    gvFreeLayout(gvc, graph);
    agclose(graph);
    gvFreeContext(gvc);
    return result;
}

} // namespace nw::ui
