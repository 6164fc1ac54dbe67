#include "export/onnx_heads.h"

#include "layers/region.h"
#include "layers/yolo.h"

#include <algorithm>

namespace nw::onnx_export {

namespace {

float anchorAt(const std::vector<float>& anchors, std::size_t i)
{
    return i < anchors.size() ? anchors[i] : 0.5f; // as decode.cpp
}

// The pieces of a head's output viewed as [batch, anchors, entries, h·w].
struct HeadParts {
    std::string xy, wh, objectness, classes;
};

HeadParts split(GraphBuilder& g, const std::string& grouped, int classes)
{
    return {g.slice(grouped, 2, 0, 2), g.slice(grouped, 2, 2, 4), g.slice(grouped, 2, 4, 5),
            g.slice(grouped, 2, 5, 5 + std::int64_t(classes))};
}

std::string concatEntries(GraphBuilder& g, const std::vector<std::string>& parts)
{
    return g.node("Concat", parts, {Attribute::integer("axis", 2)});
}

// x, y relative to the image: (cell + xy) / (w, h). The constants span the anchors' axis too: OpenCV
// 4.6 reads a constant operand of Mul/Add as a per-channel scale from axis 1 on; and the grid spans a
// fixed batch, as OpenCV adds a constant only to a tensor of its own batch (a batch-1 grid broadcast
// over batch 2 fails there).
std::string boxCentres(GraphBuilder& g, const std::string& xy, std::int64_t anchors, const Shape& out,
                       int batch)
{
    const std::size_t plane = std::size_t(out.w) * std::size_t(out.h);
    const std::size_t copies = std::size_t(std::max(1, batch));
    std::vector<float> grid(copies * std::size_t(anchors) * 2 * plane), inverse(std::size_t(anchors) * 2);
    for (std::size_t a = 0; a < std::size_t(anchors); ++a) {
        inverse[2 * a] = 1.0f / float(out.w);
        inverse[2 * a + 1] = 1.0f / float(out.h);
        float* x = grid.data() + a * 2 * plane;
        for (std::size_t cell = 0; cell < plane; ++cell) {
            x[cell] = float(cell % std::size_t(out.w)) / float(out.w);
            x[plane + cell] = float(cell / std::size_t(out.w)) / float(out.h);
        }
    }
    for (std::size_t copy = 1; copy < copies; ++copy)
        std::copy_n(grid.begin(), grid.size() / copies,
                    grid.begin() + std::ptrdiff_t(copy * grid.size() / copies));
    const std::string scaled = g.node("Mul", {xy, g.floats("inv_size", {1, anchors, 2, 1}, inverse)});
    return g.node("Add",
                  {scaled, g.floats("grid", {std::int64_t(copies), anchors, 2, std::int64_t(plane)}, grid)});
}

// Rows [batch, anchors·h·w, 5 + classes] from the decoded pieces ([batch, anchors, entries, h·w]).
std::string rows(GraphBuilder& g, const std::vector<std::string>& pieces, std::int64_t anchors,
                 const Shape& out, int classes)
{
    const std::string entriesLast =
        g.node("Transpose", {concatEntries(g, pieces)}, {Attribute::integers("perm", {0, 1, 3, 2})});
    return g.reshape(entriesLast, {0, anchors * out.w * out.h, 5 + std::int64_t(classes)});
}

Emitted yolo(LayerExport& e, const YoloLayer& l, std::string* decoded)
{
    if (l.gaussian)
        return {{}, std::string("its uncertainty planes (the σ of x, y, w, h) have no ONNX form here")};
    const Shape out = e.layer.output;
    const auto anchors = std::int64_t(l.mask.size());
    const std::int64_t entries = 5 + l.classes;
    GraphBuilder& g = e.g;
    const std::string grouped = g.reshape(e.input, {0, anchors, entries, std::int64_t(out.w) * out.h});
    HeadParts p = split(g, grouped, l.classes);
    if (!l.newCoords) { // new_coords: the convolution before already applied the logistic
        p.xy = g.node("Sigmoid", {p.xy});
        p.objectness = g.node("Sigmoid", {p.objectness});
        p.classes = g.node("Sigmoid", {p.classes});
    }
    if (l.scaleXY != 1.0f)
        p.xy = g.node("Add", {g.node("Mul", {p.xy, g.scalar("scale_x_y", l.scaleXY)}),
                              g.scalar("shift_x_y", -0.5f * (l.scaleXY - 1))});
    const std::string activated = concatEntries(g, {p.xy, p.wh, p.objectness, p.classes});
    const std::string output = g.reshape(activated, {0, out.c, out.h, out.w});
    if (decoded) {
        std::vector<float> size(std::size_t(2 * anchors));
        for (std::size_t a = 0; a < std::size_t(anchors); ++a) {
            const std::size_t k = std::size_t(l.mask[a]);
            size[2 * a] = anchorAt(l.anchors, 2 * k) / float(e.spec.net.width);
            size[2 * a + 1] = anchorAt(l.anchors, 2 * k + 1) / float(e.spec.net.height);
        }
        // exp(t)·anchor, or (AB new_coords) t²·4·anchor
        const std::string grown = l.newCoords
                                      ? g.node("Mul", {g.node("Mul", {p.wh, p.wh}), g.scalar("four", 4.0f)})
                                      : g.node("Exp", {p.wh});
        const std::string wh = g.node("Mul", {grown, g.floats("anchors", {1, anchors, 2, 1}, size)});
        const std::string probabilities = g.node("Mul", {p.classes, p.objectness});
        *decoded = rows(g, {boxCentres(g, p.xy, anchors, out, e.batch), wh, p.objectness, probabilities},
                        anchors, out, l.classes);
    }
    return {output, std::nullopt};
}

Emitted region(LayerExport& e, const RegionLayer& l, std::string* decoded)
{
    if (l.coords != 4 || !l.tree.empty())
        return {{}, std::string("only coords=4 without a tree (yolo9000) has an ONNX form here")};
    const Shape out = e.layer.output;
    const auto anchors = std::int64_t(l.num);
    GraphBuilder& g = e.g;
    const std::string grouped =
        g.reshape(e.input, {0, anchors, 5 + std::int64_t(l.classes), std::int64_t(out.w) * out.h});
    HeadParts p = split(g, grouped, l.classes);
    p.xy = g.node("Sigmoid", {p.xy});
    p.objectness = g.node("Sigmoid", {p.objectness});
    if (l.softmax) { // over the classes of each cell: put them on the last axis (Softmax before opset 13
                     // flattens from its axis on)
        const std::string last =
            g.node("Transpose", {p.classes}, {Attribute::integers("perm", {0, 1, 3, 2})});
        const std::string soft = g.node("Softmax", {last}, {Attribute::integer("axis", 3)});
        p.classes = g.node("Transpose", {soft}, {Attribute::integers("perm", {0, 1, 3, 2})});
    } else {
        p.classes = g.node("Sigmoid", {p.classes});
    }
    const std::string output =
        g.reshape(concatEntries(g, {p.xy, p.wh, p.objectness, p.classes}), {0, out.c, out.h, out.w});
    if (decoded) {
        std::vector<float> size(std::size_t(2 * anchors)); // [region] anchors are in cells
        for (std::size_t a = 0; a < std::size_t(anchors); ++a) {
            size[2 * a] = anchorAt(l.anchors, 2 * a) / float(out.w);
            size[2 * a + 1] = anchorAt(l.anchors, 2 * a + 1) / float(out.h);
        }
        const std::string wh =
            g.node("Mul", {g.node("Exp", {p.wh}), g.floats("anchors", {1, anchors, 2, 1}, size)});
        const std::string probabilities = g.node("Mul", {p.classes, p.objectness});
        *decoded = rows(g, {boxCentres(g, p.xy, anchors, out, e.batch), wh, p.objectness, probabilities},
                        anchors, out, l.classes);
    }
    return {output, std::nullopt};
}

} // namespace

bool isExportedHead(const LayerSpec& layer)
{
    return dynamic_cast<const YoloLayer*>(layer.config.get()) ||
           dynamic_cast<const RegionLayer*>(layer.config.get());
}

Emitted emitHead(LayerExport& e, std::string* decoded)
{
    if (auto* y = dynamic_cast<const YoloLayer*>(e.layer.config.get()))
        return yolo(e, *y, decoded);
    if (auto* r = dynamic_cast<const RegionLayer*>(e.layer.config.get()))
        return region(e, *r, decoded);
    return {{}, std::string("is not a detection head")};
}

} // namespace nw::onnx_export
