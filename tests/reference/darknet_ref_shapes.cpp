// Prints, for one cfg, what the reference Darknet (Debian's libdarknet, pjreddie's fork) computes for
// every layer: type, out_w, out_h, out_c, outputs, and the BFLOPs it prints for convolutions.
// One line per layer: "<index> <type> <out_w> <out_h> <out_c> <outputs> <bflops or -1>".
// It runs in its own process because libdarknet exit()s or crashes on cfgs it cannot load.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unistd.h>

extern "C" {
#include <darknet.h>
char* get_layer_string(LAYER_TYPE a);
}
#include "zero_initial_weights.h"

// Darknet prints "%5d " before each layer, and "... 0.150 BFLOPs" on a convolution's line.
static std::map<int, double> bflopsFromLog(FILE* log)
{
    std::map<int, double> result;
    char line[4096];
    int current = -1;
    while (std::fgets(line, sizeof line, log)) {
        int index = 0;
        int consumed = 0;
        if (std::sscanf(line, "%d %n", &index, &consumed) == 1 && consumed > 0)
            current = index;
        const char* mark = std::strstr(line, " BFLOPs");
        if (!mark || current < 0 || result.count(current))
            continue;
        const char* start = mark;
        while (start > line && start[-1] != ' ')
            --start;
        result[current] = std::atof(start);
    }
    return result;
}

// get_layer_string() answers "none" for a few types it was never taught.
static const char* typeName(LAYER_TYPE type)
{
    switch (type) {
    case UPSAMPLE:
        return "upsample";
    case ISEG:
        return "iseg";
    case LOGXENT:
        return "logistic";
    case L2NORM:
        return "l2norm";
    default:
        return get_layer_string(type);
    }
}

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE.cfg\n", argv[0]);
        return 2;
    }
    FILE* log = std::tmpfile();
    std::fflush(stderr);
    const int savedStderr = dup(2);
    dup2(fileno(log), 2);
    network* net = parse_network_cfg(argv[1]);
    std::fflush(stderr);
    dup2(savedStderr, 2);
    std::rewind(log);
    const std::map<int, double> bflops = bflopsFromLog(log);
    for (int i = 0; i < net->n; ++i) {
        const layer& l = net->layers[i];
        const auto found = bflops.find(i);
        const bool isConv = l.type == CONVOLUTIONAL;
        std::printf("%d %s %d %d %d %d %.3f\n", i, typeName(l.type), l.out_w, l.out_h, l.out_c, l.outputs,
                    isConv && found != bflops.end() ? found->second : -1.0);
    }
    return 0;
}
