// export-onnx: a cfg and its weights as an ONNX model (core/export/onnx_export.h).
#include "commands.h"
#include "net_loading.h"
#include "util/file_check.h"

#ifdef NETWRIGHT_WITH_ONNX
#include "export/onnx_export.h"
#endif

#include <charconv>
#include <iostream>

namespace nw::cli {

int exportOnnx(const ExportOnnxArgs& args)
{
#ifdef NETWRIGHT_WITH_ONNX
    OnnxExportOptions options;
    options.opset = args.opset;
    options.withDecode = args.withDecode;
    options.everyLayer = args.everyLayer;
    if (args.batch == "dynamic") {
        options.batch = 0;
    } else {
        const char* end = args.batch.data() + args.batch.size();
        auto [next, error] = std::from_chars(args.batch.data(), end, options.batch);
        if (error != std::errc() || next != end || options.batch < 1 || options.batch > 65536) {
            std::cerr << "error: --batch " << args.batch << ": give a number from 1 to 65536, or dynamic\n";
            return 1;
        }
    }
    if (auto problem = outputIsAnInput(args.out, {args.cfg, args.weights})) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    // (a recurrent network's batch is one sequence: at 1 it was refused for its batch, not as having no
    // ONNX form)
    auto net = loadNet(args.cfg, args.weights, timeSteps(args.cfg), {}, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    OnnxExportReport report;
    if (auto error = nw::exportOnnx(*net, options, args.out, &report)) {
        std::cerr << "error: " << *error << "\n";
        return 1;
    }
    std::ostream& said = reportStreamFor(args.out);
    said << "Wrote " << args.out << " (opset " << options.opset << ", " << report.nodes << " nodes, "
         << (report.bytes + 512 * 1024) / (1024 * 1024) << " MB)\n";
    for (const std::string& output : report.outputs)
        said << "  output " << output << "\n";
    return 0;
#else
    (void)args;
    std::cerr << "error: this netwright-cli was built without ONNX export: install libonnx-dev and "
                 "libprotobuf-dev (scripts/setup.sh does) and rebuild\n";
    return 1;
#endif
}

} // namespace nw::cli
